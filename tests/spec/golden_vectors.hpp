// Loads tests/spec/vectors/formats.json, the hand-written golden byte vectors that the
// C++ accessor test and the RTL probe test both decode.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace syncfab::fmt::test {

// Field values by path: "epoch", "quanta[3]", "round[2].dst_lid[1]".
using FieldValues = std::map<std::string, std::uint64_t>;
// Expected enum names by field ("" = a value the spec does not define).
using EnumNames = std::map<std::string, std::string>;

struct GoldenVector {
  std::string name;
  std::string format;
  std::vector<std::uint8_t> bytes;
  FieldValues fields;
  EnumNames names;
  bool reencode = true;
};

// GoogleTest prints a parameter by its name, not as a byte dump.
inline void PrintTo(const GoldenVector& v, std::ostream* os) { *os << v.name; }

// Every vector of the file; throws std::runtime_error naming the vector and the
// problem when the file is malformed.
std::vector<GoldenVector> load_golden_vectors(const std::string& path);

// The vectors of the built-in path (SYNCFAB_FMT_VECTORS_JSON), loaded once.
const std::vector<GoldenVector>& golden_vectors();
const GoldenVector& golden_vector(std::string_view name);

// One line per path whose value differs or that only one side has; empty when equal.
std::vector<std::string> diff_fields(const FieldValues& expected, const FieldValues& actual);
std::vector<std::string> diff_names(const EnumNames& expected, const EnumNames& actual);

// A vector name usable as a GoogleTest parameter name.
std::string test_name(const std::string& vector_name);

}  // namespace syncfab::fmt::test
