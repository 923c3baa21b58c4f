// The driver's register layer and identity check over the golden model, and
// wait_interrupt() advancing simulated time.
#include <gtest/gtest.h>

#include <syncfab/driver/barrier_desc.hpp>
#include <syncfab/driver/identity.hpp>
#include <syncfab/hw/csr.hpp>
#include <syncfab/hw/host_memory.hpp>
#include <syncfab/model/model_device.hpp>

namespace syncfab::model {
namespace {

namespace nic = hw::nic;

TEST(ModelDevice, DriverSeesTheModelThroughDevice) {
  hw::HostMemory mem(0x1000'0000, 1 << 16);
  BarrierEngine eng(EngineConfig{}, mem);
  ModelDevice dev(
      eng, mem, [&] { eng.step(); }, 2);
  EXPECT_NO_THROW((void)driver::check_identity(dev));
  hw::Csr csr(dev);
  csr.write(nic::INTR_ENABLE, {{nic::INTR_ENABLE_DONE, 1}});
  csr.write(nic::CTRL, {{nic::CTRL_ENABLE, 1}});
  // A communicator of one: no rounds, completes at once.
  const auto s = driver::build_barrier_schedule(0, 1, 1);
  const std::vector<std::uint16_t> lids = {1};
  const auto d = driver::encode_barrier_desc(s, lids, 0, 1, {true, 0x1000'0008, 42, false, true});
  const auto words = driver::desc_words(d);
  csr.write_hdq_window(words);
  csr.write(nic::HDQ_POST, {{nic::HDQ_POST_POST, 1}});
  EXPECT_FALSE(dev.wait_interrupt(std::chrono::nanoseconds(4)));  // 2 cycles: too soon
  EXPECT_TRUE(dev.wait_interrupt(std::chrono::microseconds(1)));
  EXPECT_EQ(mem.read64(0x1000'0008), 42U);
  EXPECT_EQ(csr.read(nic::INTR_STATUS_DONE), 1U);
  EXPECT_LT(eng.cycle(), 500U);
}

}  // namespace
}  // namespace syncfab::model
