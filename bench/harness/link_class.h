// The link class of a rank pair (the `link_class` column): ranks on one node talk through shared
// memory; ranks on different nodes through the node's network, whose class is stated by the
// user (--link-class) or read from sysfs.
#pragma once

#include <string>

namespace wb {

// "ib" when an active InfiniBand port exists, "roce" when an active port runs Ethernet link
// layer, otherwise "eth". `sysfs_root` is a parameter so tests can give a fake tree.
std::string detect_network_link_class(const std::string& sysfs_root = "/sys");

std::string pair_link_class(const std::string& host_a, const std::string& host_b,
                            const std::string& network_class);

}  // namespace wb
