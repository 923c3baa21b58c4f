#pragma once
// Errors of the subnet manager: bad input names the file and line, bad
// arguments and impossible requests name what is wrong.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace syncfab::sm {

// Text from the user as a message quotes it: control characters escaped
// ("\r", "\x01"), and anything past `max` bytes cut and counted, so a
// stray binary file or a 70 KB token makes a one-line message.
std::string printable(std::string_view text, std::size_t max = 64);

// A malformed input file (net file, groups file): "file:line: what", or
// "file: what" when it is about the whole file (line 0).
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::size_t line, const std::string& what)
      : std::runtime_error(file + (line == 0 ? "" : ":" + std::to_string(line)) + ": " + what),
        file_(std::move(file)),
        line_(line) {}
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] std::size_t line() const { return line_; }

 private:
  std::string file_;
  std::size_t line_;
};

// A request the fabric cannot satisfy (bad generator parameters, port in
// use, disconnected fabric, LID or MLID space exhausted).
class FabricError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace syncfab::sm
