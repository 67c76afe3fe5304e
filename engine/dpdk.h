// The one place that pulls in DPDK's headers, so that every engine file sees
// the same set and the experimental graph API is enabled consistently.
#pragma once

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_fib6.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_hash.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_memory.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_rwlock.h>
#include <rte_spinlock.h>
#include <rte_hash_crc.h>
#include <rte_udp.h>
#include <rte_vect.h>
