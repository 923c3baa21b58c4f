// The checks every TLM target of the platform makes before it touches a
// transaction, and the count of what each refused. A refused transaction
// gets its TLM error response and a SystemC warning naming the target, the
// command, the address and the reason; the simulation goes on (the
// initiator decides what an error means: the host's Device throws the
// driver's usual hw::BusError / hw::DmaError).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <tlm>

namespace syncfab::vp {

// The error responses a target gives, one counter each.
enum class TlmError : std::uint8_t { kCommand, kBurst, kByteEnable, kAddress };
inline constexpr std::size_t kNumTlmErrors = 4;

struct TlmErrorCounts {
  std::array<std::uint64_t, kNumTlmErrors> by_kind{};
  [[nodiscard]] std::uint64_t operator[](TlmError e) const {
    return by_kind.at(static_cast<std::size_t>(e));
  }
  [[nodiscard]] std::uint64_t total() const;
};

[[nodiscard]] tlm::tlm_response_status response_of(TlmError e);
// "TLM_ADDRESS_ERROR_RESPONSE" etc.
[[nodiscard]] std::string to_string(tlm::tlm_response_status s);
[[nodiscard]] std::string describe(const tlm::tlm_generic_payload& t);

// Sets t's error response, counts it and reports it as a SystemC warning
// from `target` ("<target>: refused <describe(t)>: <why>").
void refuse(tlm::tlm_generic_payload& t, TlmError e, TlmErrorCounts& counts,
            const std::string& target, const std::string& why);

// A 32-bit register access: read or write, 4 bytes, streaming width 4, no
// byte enables. Refuses (and returns false) otherwise.
bool check_word_access(tlm::tlm_generic_payload& t, TlmErrorCounts& counts,
                       const std::string& target);

}  // namespace syncfab::vp
