#include <algorithm>
#include <cstring>

#include "coll/coll_buffers.h"

namespace wb {
namespace {

class HostCollBuffers final : public CollBuffers {
 public:
  // +1: a zero-element buffer still needs an address.
  HostCollBuffers(std::size_t send_bytes, std::size_t recv_bytes) : send_(send_bytes + 1), recv_(recv_bytes + 1) {}
  void* send() override { return send_.data(); }
  void* recv() override { return recv_.data(); }
  void write_send(const std::vector<unsigned char>& bytes) override { copy_in(send_, bytes); }
  void write_recv(const std::vector<unsigned char>& bytes) override { copy_in(recv_, bytes); }
  std::vector<unsigned char> read_recv() override { return {recv_.begin(), recv_.end() - 1}; }

 private:
  static void copy_in(std::vector<unsigned char>& to, const std::vector<unsigned char>& from) {
    std::memcpy(to.data(), from.data(), std::min(from.size(), to.size()));
  }
  std::vector<unsigned char> send_, recv_;
};

}  // namespace

std::unique_ptr<CollBuffers> make_host_coll_buffers(std::size_t send_bytes, std::size_t recv_bytes) {
  return std::make_unique<HostCollBuffers>(send_bytes, recv_bytes);
}

}  // namespace wb
