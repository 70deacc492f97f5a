// Host memory and threads placed on NUMA nodes, through hwloc: buffers bound to a node, the
// calling thread bound to a node's CPUs. On a machine or container where binding is refused the
// buffer is still allocated (first touch by the bound thread places it) and `binding_note` says so.
#pragma once

#include <hwloc.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wb {

class NumaMemory {
 public:
  NumaMemory();
  ~NumaMemory();
  NumaMemory(const NumaMemory&) = delete;
  NumaMemory& operator=(const NumaMemory&) = delete;

  // OS indices of the NUMA nodes, ascending.
  const std::vector<int>& nodes() const { return nodes_; }

  struct Buffer {
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  using BufferPtr = std::unique_ptr<Buffer, std::function<void(Buffer*)>>;

  // `bytes` on node `node`, every page touched (so it is really there before timing).
  BufferPtr allocate_on(int node, std::size_t bytes);
  // Binds the calling thread to node's CPUs.
  void bind_thread_to(int node);

  const std::string& binding_note() const { return binding_note_; }

 private:
  hwloc_obj_t node_object(int node) const;
  hwloc_topology_t topology_ = nullptr;
  std::vector<int> nodes_;
  std::string binding_note_;
};

}  // namespace wb
