#include "syncfab/vp/tlm_check.hpp"

#include <numeric>
#include <sstream>

#include <systemc>

namespace syncfab::vp {

std::uint64_t TlmErrorCounts::total() const {
  return std::accumulate(by_kind.begin(), by_kind.end(), std::uint64_t{0});
}

tlm::tlm_response_status response_of(TlmError e) {
  switch (e) {
    case TlmError::kCommand:
      return tlm::TLM_COMMAND_ERROR_RESPONSE;
    case TlmError::kBurst:
      return tlm::TLM_BURST_ERROR_RESPONSE;
    case TlmError::kByteEnable:
      return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    case TlmError::kAddress:
      return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  }
  return tlm::TLM_GENERIC_ERROR_RESPONSE;
}

std::string to_string(tlm::tlm_response_status s) {
  switch (s) {
    case tlm::TLM_OK_RESPONSE:
      return "TLM_OK_RESPONSE";
    case tlm::TLM_INCOMPLETE_RESPONSE:
      return "TLM_INCOMPLETE_RESPONSE";
    case tlm::TLM_GENERIC_ERROR_RESPONSE:
      return "TLM_GENERIC_ERROR_RESPONSE";
    case tlm::TLM_ADDRESS_ERROR_RESPONSE:
      return "TLM_ADDRESS_ERROR_RESPONSE";
    case tlm::TLM_COMMAND_ERROR_RESPONSE:
      return "TLM_COMMAND_ERROR_RESPONSE";
    case tlm::TLM_BURST_ERROR_RESPONSE:
      return "TLM_BURST_ERROR_RESPONSE";
    case tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE:
      return "TLM_BYTE_ENABLE_ERROR_RESPONSE";
  }
  return "response " + std::to_string(static_cast<int>(s));
}

std::string describe(const tlm::tlm_generic_payload& t) {
  std::ostringstream s;
  const char* cmd = t.is_read() ? "read" : t.is_write() ? "write" : "ignore";
  s << cmd << " of " << t.get_data_length() << " bytes at 0x" << std::hex << t.get_address()
    << std::dec << " (streaming width " << t.get_streaming_width()
    << (t.get_byte_enable_ptr() != nullptr ? ", byte enables" : "") << ")";
  return s.str();
}

void refuse(tlm::tlm_generic_payload& t, TlmError e, TlmErrorCounts& counts,
            const std::string& target, const std::string& why) {
  t.set_response_status(response_of(e));
  ++counts.by_kind.at(static_cast<std::size_t>(e));
  const std::string text = target + ": refused " + describe(t) + ": " + why;
  SC_REPORT_WARNING("syncfab/vp/tlm", text.c_str());
}

bool check_word_access(tlm::tlm_generic_payload& t, TlmErrorCounts& counts,
                       const std::string& target) {
  if (!t.is_read() && !t.is_write()) {
    refuse(t, TlmError::kCommand, counts, target, "only reads and writes");
    return false;
  }
  if (t.get_data_length() != 4 || t.get_streaming_width() != 4) {
    refuse(t, TlmError::kBurst, counts, target, "registers take single 32-bit accesses");
    return false;
  }
  if (t.get_byte_enable_ptr() != nullptr) {
    refuse(t, TlmError::kByteEnable, counts, target, "registers take no byte enables");
    return false;
  }
  return true;
}

}  // namespace syncfab::vp
