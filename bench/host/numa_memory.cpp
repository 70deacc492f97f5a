#include "host/numa_memory.h"

#include <cstdlib>
#include <cstring>

#include "harness/errors.h"

namespace wb {

NumaMemory::NumaMemory() {
  if (hwloc_topology_init(&topology_) != 0 || hwloc_topology_load(topology_) != 0)
    throw CallError("hwloc could not load this machine's topology");
  const int count = hwloc_get_nbobjs_by_type(topology_, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < count; ++i)
    nodes_.push_back(static_cast<int>(hwloc_get_obj_by_type(topology_, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i))->os_index));
  if (nodes_.empty()) nodes_.push_back(0);  // hwloc always reports one; never leave callers empty
}

NumaMemory::~NumaMemory() {
  if (topology_ != nullptr) hwloc_topology_destroy(topology_);
}

hwloc_obj_t NumaMemory::node_object(int node) const {
  const int count = hwloc_get_nbobjs_by_type(topology_, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < count; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topology_, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (static_cast<int>(obj->os_index) == node) return obj;
  }
  throw UsageError("no NUMA node " + std::to_string(node) + " on this machine");
}

NumaMemory::BufferPtr NumaMemory::allocate_on(int node, std::size_t bytes) {
  hwloc_obj_t obj = node_object(node);
  const std::size_t size = bytes == 0 ? 1 : bytes;
  void* data = hwloc_alloc_membind(topology_, size, obj->nodeset, HWLOC_MEMBIND_BIND,
                                   HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT);
  bool bound = data != nullptr;
  if (!bound) {
    data = hwloc_alloc(topology_, size);  // binding refused: first touch below places it
    if (data == nullptr) throw CallError("cannot allocate " + std::to_string(size) + " bytes of host memory");
    binding_note_ = "memory binding refused by the system; buffers placed by first touch";
  }
  std::memset(data, 0, size);  // touch every page now, not during timing
  hwloc_topology_t topology = topology_;
  return BufferPtr(new Buffer{data, bytes}, [topology, size](Buffer* b) {
    hwloc_free(topology, b->data, size);
    delete b;
  });
}

void NumaMemory::bind_thread_to(int node) {
  hwloc_obj_t obj = node_object(node);
  if (hwloc_set_cpubind(topology_, obj->cpuset, HWLOC_CPUBIND_THREAD) != 0)
    binding_note_ = "thread binding refused by the system; copies ran where the scheduler put them";
}

}  // namespace wb
