// The device-memory backends of wb-net: CUDA-aware MPI on device buffers (`mpi-cuda`) and NCCL
// send/recv (`nccl`). Built with or without CUDA; without a usable GPU they say why, and wb-net
// writes SKIP rows with that reason.
#pragma once

#include <mpi.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "comm/communicator.h"
#include "net/message_buffers.h"

namespace wb {

struct DeviceTransport {
  std::unique_ptr<Communicator> comm;
  std::function<std::unique_ptr<MessageBuffers>(std::size_t bytes, std::size_t slots)> make_buffers;
};

// Why `backend` cannot run on this rank, or nullopt when it can. Collective-free: every rank asks
// itself, and the caller agrees across ranks before opening anything.
std::optional<std::string> device_transport_unavailable(const std::string& backend);

// Opens the backend on every rank of `world` (collective). Only call when all ranks can.
DeviceTransport open_device_transport(const std::string& backend, MPI_Comm world,
                                      std::chrono::milliseconds timeout);

}  // namespace wb
