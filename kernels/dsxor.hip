// dsxor kernels: the code under test. Every ds_xor_rtn_b64 below is written
// by hand in inline assembly, so the instruction, its offset and the wait
// after it are exactly what dsxor claims (the compiler only allocates the
// registers and builds the EXEC mask around it).
//
// Needs no ROCm header: it builds with LLVM's clang
//   clang -x hip --cuda-device-only --offload-arch=gfx1100 -nogpulib -nogpuinc
// as well as with ROCm's hipcc/amdclang. build.rs holds the exact flags; the
// ABI of every kernel is fixed in docs/src/internals/kernel-abi.md and
// restated above each kernel.

typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// HIP's own spellings of these (hip/amd_detail/host_defines.h) are
// attribute macros; spelled out here so no header is needed.
#define DSXOR_GLOBAL extern "C" __attribute__((global))
#define DSXOR_DEVICE static __attribute__((device)) inline __attribute__((always_inline))
#define DSXOR_SHARED __attribute__((shared))

// Dynamic LDS. With no static __shared__ variable anywhere in this file the
// dynamic group segment starts at LDS address 0 (AMDGPUUsage.rst, "Dynamic
// LDS": it follows the kernel's group_segment_fixed_size), so an ADDR value
// is a byte offset into this array. The tests check group_segment_fixed_size
// is 0 in every kernel's metadata.
extern DSXOR_SHARED uint64_t dsxor_lds[];

// The wait that makes a DS return value usable (RDNA3 ISA guide, "Data
// dependency resolution": LGKM_CNT counts outstanding LDS instructions).
// gfx12 split LGKM_CNT into separate counters: DS uses DScnt, waited on with
// s_wait_dscnt (RDNA4 ISA guide; llvm/test/MC/AMDGPU/gfx12_asm_sopp.s).
#if defined(__GFX12__)
#define DSXOR_WAIT_DS "s_wait_dscnt 0x0"
#else
#define DSXOR_WAIT_DS "s_waitcnt lgkmcnt(0)"
#endif

// HIP's __syncthreads (hip/amd_detail/amd_device_functions.h): a workgroup
// release fence, the barrier, an acquire fence, so LDS writes before it are
// visible to every wave after it.
DSXOR_DEVICE void dsxor_barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

DSXOR_DEVICE uint32_t dsxor_block_dim() {
  // Reads hidden_group_size_x from the implicit kernarg segment (code object
  // v5), which the host fills: codeobj's kernarg builder does the same.
  return __builtin_amdgcn_workgroup_size_x();
}

// ---------------------------------------------------------------------------
// Conformance kernels
//
//   dsxor_conformance_off<N>(addr, data, active, lds_init, ret, lds_out,
//                            lds_qwords)
//
// 1-D grid; lane = blockIdx.x * blockDim.x + threadIdx.x. Copy this
// workgroup's LDS image in, barrier, one ds_xor_rtn_b64 per active lane
// (inactive lanes are masked off in EXEC by the branch), wait, store VDST for
// every lane, barrier, dump the LDS image.
//
// The label `<kernel>.ds_xor_site` (a local symbol in .symtab) marks the
// instruction, so codeobj::patch_ds_offset can check that the one
// ds_xor_rtn_b64 it finds by decoding is exactly the one the source put
// there. (An assembler error "symbol already defined" would mean the
// compiler duplicated the asm: the kernel must hold exactly one.)
//
// VDST is an in/out operand ("+v"): it holds ret[lane] before the
// instruction, so a lane whose EXEC bit is clear must still show its initial
// value afterwards, and an active lane that never got its result written
// shows the host's poison value.
// ---------------------------------------------------------------------------
#define DSXOR_STR2(x) #x
#define DSXOR_STR(x) DSXOR_STR2(x)

#define DSXOR_CONFORMANCE(N)                                                   \
  DSXOR_GLOBAL void dsxor_conformance_off##N(                                  \
      const uint32_t *addr, const uint64_t *data, const uint32_t *active,      \
      const uint64_t *lds_init, uint64_t *ret, uint64_t *lds_out,              \
      uint32_t lds_qwords) {                                                   \
    const uint32_t tid = __builtin_amdgcn_workitem_id_x();                     \
    const uint32_t group = __builtin_amdgcn_workgroup_id_x();                  \
    const uint32_t block = dsxor_block_dim();                                  \
    const uint32_t lane = group * block + tid;                                 \
    const uint64_t base = (uint64_t)group * lds_qwords;                        \
    for (uint32_t i = tid; i < lds_qwords; i += block)                         \
      dsxor_lds[i] = lds_init[base + i];                                       \
    dsxor_barrier();                                                           \
    const uint32_t a = addr[lane];                                             \
    const uint64_t d = data[lane];                                             \
    uint64_t vdst = ret[lane];                                                 \
    if (active[lane] != 0) {                                                   \
      __asm__ volatile("dsxor_conformance_off" #N ".ds_xor_site:\n\t"          \
                       "ds_xor_rtn_b64 %0, %1, %2 offset:" DSXOR_STR(N) "\n\t" \
                       DSXOR_WAIT_DS                                           \
                       : "+v"(vdst)                                            \
                       : "v"(a), "v"(d)                                        \
                       : "memory");                                            \
    }                                                                          \
    ret[lane] = vdst;                                                          \
    dsxor_barrier();                                                           \
    for (uint32_t i = tid; i < lds_qwords; i += block)                         \
      lds_out[base + i] = dsxor_lds[i];                                        \
  }

DSXOR_CONFORMANCE(0)
DSXOR_CONFORMANCE(8)
DSXOR_CONFORMANCE(4096)
DSXOR_CONFORMANCE(65528)

// ---------------------------------------------------------------------------
// Conformance kernels with rounds
//
//   dsxor_conformance_rounds_off<N>(addr, data, active, lds_init, ret,
//                                   lds_out, lds_qwords, rounds)
//
// The kernel above, its one ds_xor_rtn_b64 issued `rounds` times per lane,
// so one LDS image copied in and out serves many checked instructions.
// ADDR and EXEC stay those of the lane; DATA and VDST-before change per
// round: data[] and ret[] hold `rounds` qwords per lane, lane-major
// (index lane * rounds + r), so each workgroup's slice is contiguous. Each
// round: the instruction, its wait, the store of its return, a workgroup
// barrier. The barrier orders the rounds across the waves of the group, so
// round r + 1 starts from exactly the LDS round r left (for XOR: round r's
// start XOR all its DATA, under any order) and every round is checked
// like a one-round case. VDST is reloaded from ret[] every round: a round
// that never wrote an active lane's VDST shows that round's own poison,
// not the previous round's return.
//
// The loop is not unrolled (the asm carries a label, which must appear once:
// codeobj::patch_ds_offset finds the one site by it).
// ---------------------------------------------------------------------------
#define DSXOR_CONFORMANCE_ROUNDS(N)                                            \
  DSXOR_GLOBAL void dsxor_conformance_rounds_off##N(                           \
      const uint32_t *addr, const uint64_t *data, const uint32_t *active,      \
      const uint64_t *lds_init, uint64_t *ret, uint64_t *lds_out,              \
      uint32_t lds_qwords, uint32_t rounds) {                                  \
    const uint32_t tid = __builtin_amdgcn_workitem_id_x();                     \
    const uint32_t group = __builtin_amdgcn_workgroup_id_x();                  \
    const uint32_t block = dsxor_block_dim();                                  \
    const uint32_t lane = group * block + tid;                                 \
    const uint64_t base = (uint64_t)group * lds_qwords;                        \
    for (uint32_t i = tid; i < lds_qwords; i += block)                         \
      dsxor_lds[i] = lds_init[base + i];                                       \
    dsxor_barrier();                                                           \
    const uint32_t a = addr[lane];                                             \
    const bool on = active[lane] != 0;                                         \
    const uint64_t first = (uint64_t)lane * rounds;                            \
    _Pragma("clang loop unroll(disable)")                                      \
    for (uint32_t r = 0; r < rounds; ++r) {                                    \
      const uint64_t d = data[first + r];                                      \
      uint64_t vdst = ret[first + r];                                          \
      if (on) {                                                                \
        __asm__ volatile("dsxor_conformance_rounds_off" #N ".ds_xor_site:\n\t" \
                         "ds_xor_rtn_b64 %0, %1, %2 offset:" DSXOR_STR(N)      \
                         "\n\t" DSXOR_WAIT_DS                                   \
                         : "+v"(vdst)                                          \
                         : "v"(a), "v"(d)                                      \
                         : "memory");                                          \
      }                                                                        \
      ret[first + r] = vdst;                                                   \
      dsxor_barrier();                                                         \
    }                                                                          \
    for (uint32_t i = tid; i < lds_qwords; i += block)                         \
      lds_out[base + i] = dsxor_lds[i];                                        \
  }

DSXOR_CONFORMANCE_ROUNDS(0)
DSXOR_CONFORMANCE_ROUNDS(8)
DSXOR_CONFORMANCE_ROUNDS(4096)
DSXOR_CONFORMANCE_ROUNDS(65528)

// ---------------------------------------------------------------------------
// Conformance kernels with background LDS traffic and a spin (the stress
// family)
//
//   dsxor_conformance_traffic_off<N>(addr, data, active, lds_init, ret,
//                                    lds_out, lds_qwords, rounds, ctl,
//                                    verdict)
//
// The rounds kernel above (rounds >= 1; data[] and ret[] lane-major, one
// qword per lane and round), with two more buffers:
//
//   ctl[lane]          bit 31: the lane runs traffic instead of the atomic
//                      (the host gives whole waves this role, so traffic
//                      runs in other waves than the atomics); bits 15:0:
//                      spin, iterations of s_sleep before each round's
//                      atomic, so waves leave the barrier out of lockstep.
//   verdict[2 * lane]  count of the lane's traffic loads that did not
//                      return what the lane expected (0 for atomic lanes);
//   verdict[2*lane+1]  the first such value (0 if none).
//
// Each round, after the barrier that starts it, a traffic lane owns the
// qword at ADDR + N (disjoint from every contended qword, one owner each)
// and runs DSXOR_TRAFFIC_ITERS iterations: a ds_store_b64 of the qword's
// original value XOR a per-iteration pattern (from the lane's DATA of the
// round), then a ds_load_b64 that must return it; the round ends with a
// store of the original value, so the final image is the initial one. The
// round's first load must return the value round 0 started from. Its EXEC
// bit for the atomic is 0 (the host clears `active`), so its VDST keeps
// its initial value, as any inactive lane's.
//
// Same-wave DS operations complete in order (RDNA3 ISA guide §12.5; LLVM
// SIInsertWaitcnts.cpp relies on it), so a load after the lane's own store
// needs no wait for the store; each load's result is used only after
// s_waitcnt lgkmcnt(0) (ISA guide "Data dependency resolution"), inside the
// same asm statement. The traffic loads and stores carry offset:N as the
// atomic does, so every lane's effective address is ADDR + offset
// (CalcDsAddr); offset patching (codeobj::patch_ds_offset) rewrites only
// the atomic, so the host runs these kernels only at their shipped offsets.
// ---------------------------------------------------------------------------
#if defined(__GFX11__) || defined(__GFX12__)
#define DSXOR_DS_LOAD_B64 "ds_load_b64"
#define DSXOR_DS_STORE_B64 "ds_store_b64"
#else
// The pre-gfx11 names of the same instructions (LLVM renamed them for
// gfx11: llvm/lib/Target/AMDGPU/DSInstructions.td).
#define DSXOR_DS_LOAD_B64 "ds_read_b64"
#define DSXOR_DS_STORE_B64 "ds_write_b64"
#endif
#define DSXOR_TRAFFIC_ITERS 4
#define DSXOR_TRAFFIC_ROLE 0x80000000u
#define DSXOR_TRAFFIC_SPIN 0xffffu
// Odd, so the patterns of successive iterations differ.
#define DSXOR_TRAFFIC_STEP 0x9e3779b97f4a7c15ull

#define DSXOR_CONFORMANCE_TRAFFIC(N)                                           \
  DSXOR_GLOBAL void dsxor_conformance_traffic_off##N(                          \
      const uint32_t *addr, const uint64_t *data, const uint32_t *active,      \
      const uint64_t *lds_init, uint64_t *ret, uint64_t *lds_out,              \
      uint32_t lds_qwords, uint32_t rounds, const uint32_t *ctl,               \
      uint64_t *verdict) {                                                     \
    const uint32_t tid = __builtin_amdgcn_workitem_id_x();                     \
    const uint32_t group = __builtin_amdgcn_workgroup_id_x();                  \
    const uint32_t block = dsxor_block_dim();                                  \
    const uint32_t lane = group * block + tid;                                 \
    const uint64_t base = (uint64_t)group * lds_qwords;                        \
    for (uint32_t i = tid; i < lds_qwords; i += block)                         \
      dsxor_lds[i] = lds_init[base + i];                                       \
    dsxor_barrier();                                                           \
    const uint32_t a = addr[lane];                                             \
    const bool on = active[lane] != 0;                                         \
    const uint32_t c = ctl[lane];                                              \
    const bool traffic = (c & DSXOR_TRAFFIC_ROLE) != 0;                        \
    const uint32_t spin = c & DSXOR_TRAFFIC_SPIN;                              \
    const uint64_t first = (uint64_t)lane * rounds;                            \
    uint64_t bad = 0, first_bad = 0, start = 0;                                \
    _Pragma("clang loop unroll(disable)")                                      \
    for (uint32_t r = 0; r < rounds; ++r) {                                    \
      const uint64_t d = data[first + r];                                      \
      uint64_t vdst = ret[first + r];                                          \
      if (traffic) {                                                           \
        uint64_t orig;                                                         \
        __asm__ volatile(DSXOR_DS_LOAD_B64 " %0, %1 offset:" DSXOR_STR(N)      \
                         "\n\t" DSXOR_WAIT_DS                                  \
                         : "=v"(orig)                                          \
                         : "v"(a)                                              \
                         : "memory");                                          \
        if (r == 0)                                                            \
          start = orig;                                                        \
        else if (orig != start && bad++ == 0)                                  \
          first_bad = orig;                                                    \
        _Pragma("clang loop unroll(disable)")                                  \
        for (uint32_t k = 0; k < DSXOR_TRAFFIC_ITERS; ++k) {                   \
          const uint64_t want = start ^ d ^ (k * DSXOR_TRAFFIC_STEP);          \
          uint64_t got;                                                        \
          __asm__ volatile(DSXOR_DS_STORE_B64 " %1, %2 offset:" DSXOR_STR(N)   \
                           "\n\t" DSXOR_DS_LOAD_B64                            \
                           " %0, %1 offset:" DSXOR_STR(N) "\n\t" DSXOR_WAIT_DS \
                           : "=&v"(got)                                        \
                           : "v"(a), "v"(want)                                 \
                           : "memory");                                        \
          if (got != want && bad++ == 0)                                       \
            first_bad = got;                                                   \
        }                                                                      \
        __asm__ volatile(DSXOR_DS_STORE_B64 " %0, %1 offset:" DSXOR_STR(N)     \
                         :                                                     \
                         : "v"(a), "v"(start)                                  \
                         : "memory");                                          \
      } else {                                                                 \
        _Pragma("clang loop unroll(disable)")                                  \
        for (uint32_t s = 0; s < spin; ++s)                                    \
          __asm__ volatile("s_sleep 1" ::: "memory");                          \
        if (on) {                                                              \
          __asm__ volatile("dsxor_conformance_traffic_off" #N                  \
                           ".ds_xor_site:\n\t"                                 \
                           "ds_xor_rtn_b64 %0, %1, %2 offset:" DSXOR_STR(N)    \
                           "\n\t" DSXOR_WAIT_DS                                 \
                           : "+v"(vdst)                                        \
                           : "v"(a), "v"(d)                                    \
                           : "memory");                                        \
        }                                                                      \
      }                                                                        \
      ret[first + r] = vdst;                                                   \
      dsxor_barrier();                                                         \
    }                                                                          \
    verdict[2 * (uint64_t)lane] = bad;                                         \
    verdict[2 * (uint64_t)lane + 1] = first_bad;                               \
    for (uint32_t i = tid; i < lds_qwords; i += block)                         \
      lds_out[base + i] = dsxor_lds[i];                                        \
  }

DSXOR_CONFORMANCE_TRAFFIC(0)
DSXOR_CONFORMANCE_TRAFFIC(8)
DSXOR_CONFORMANCE_TRAFFIC(4096)
DSXOR_CONFORMANCE_TRAFFIC(65528)

// ---------------------------------------------------------------------------
// Throughput kernels
//
//   dsxor_throughput_dep / dsxor_throughput_indep(addr, data, fold, lds_out,
//                                                 iters, dep_mask, lds_qwords)
//
// Zero the LDS, barrier, `iters` ds_xor_rtn_b64 per lane on address
// addr[lane], XOR every returned value into fold[lane], barrier, dump the
// LDS. data_next = data ^ (ret & dep_mask): the host passes 0, so the data
// stays fixed while the compiler must still treat each return as an input
// of the next data. What each kernel then leaves behind is stated above it;
// src/bench/expect.rs checks exactly that.
// ---------------------------------------------------------------------------

DSXOR_DEVICE void dsxor_lds_zero(uint32_t tid, uint32_t block,
                                 uint32_t lds_qwords) {
  for (uint32_t i = tid; i < lds_qwords; i += block)
    dsxor_lds[i] = 0;
}

DSXOR_DEVICE void dsxor_lds_dump(uint64_t *lds_out, uint64_t base,
                                 uint32_t tid, uint32_t block,
                                 uint32_t lds_qwords) {
  for (uint32_t i = tid; i < lds_qwords; i += block)
    lds_out[base + i] = dsxor_lds[i];
}

// Dependent: one instruction in flight; its return feeds the next data.
// Every instruction xors d = data[lane]: final LDS at a = XOR over lanes at
// a of d when iters is odd, else 0, under any order; a lane alone at its
// address reads 0, d, 0, d, ..., so its fold is d when iters / 2 is odd.
DSXOR_GLOBAL void dsxor_throughput_dep(const uint32_t *addr,
                                       const uint64_t *data, uint64_t *fold,
                                       uint64_t *lds_out, uint32_t iters,
                                       uint64_t dep_mask,
                                       uint32_t lds_qwords) {
  const uint32_t tid = __builtin_amdgcn_workitem_id_x();
  const uint32_t group = __builtin_amdgcn_workgroup_id_x();
  const uint32_t block = dsxor_block_dim();
  const uint32_t lane = group * block + tid;
  dsxor_lds_zero(tid, block, lds_qwords);
  dsxor_barrier();
  const uint32_t a = addr[lane];
  uint64_t d = data[lane];
  uint64_t f = 0;
  for (uint32_t i = 0; i < iters; ++i) {
    uint64_t r;
    __asm__ volatile("ds_xor_rtn_b64 %0, %1, %2\n\t" DSXOR_WAIT_DS
                     : "=&v"(r)
                     : "v"(a), "v"(d)
                     : "memory");
    f ^= r;
    d ^= r & dep_mask;
  }
  fold[lane] = f;
  dsxor_barrier();
  dsxor_lds_dump(lds_out, (uint64_t)group * lds_qwords, tid, block,
                 lds_qwords);
}

// Independent: four instructions in flight before one wait (iters is a
// multiple of 4; a remainder is not issued). Early-clobber outputs keep the
// four VDSTs apart from ADDR and the DATA registers, which the later
// instructions still read while earlier ones are outstanding.
//
// The four instructions xor four different values, d = data[lane] under the
// 16-bit chunk masks DSXOR_INDEP_MASK0..3 (chunk 3 = bits 63:48 ... chunk 0
// = bits 15:0; masks 1111, 0011, 1000, 1011). The same value four times
// would cancel: every expected LDS qword and fold would be 0, and a kernel
// that issued nothing would pass. With these masks, after k = iters / 4
// rounds:
//   - final LDS at a = XOR over lanes at a of d when k is odd, else 0 (the
//     masks XOR to all ones; XOR commutes, so this holds under any order);
//   - a lane alone at its address: the DS instructions of one wave complete
//     in issue order (LGKM_CNT counts them in order: CLRX GcnInstrsDs.md
//     "Any DS instruction return data in order"; LLVM's SIInsertWaitcnts
//     waits lgkmcnt(N > 0) on LDS for the same reason), so a round starting
//     at LDS value p returns p, p^v0, p^v0^v1, p^v0^v1^v2: their XOR is
//     v0 ^ v2 = d & 0x0000ffffffffffff, and the fold is that when k is odd,
//     else 0.
// Why not d, rotl(d,16), rotl(d,32), rotl(d,48): those XOR to a value with
// four equal 16-bit chunks, and v0 ^ v2 = d ^ rotl(d,32) has equal dwords,
// so a device returning each qword with its dwords swapped would pass.
// Chunk masks also keep every value inside the host's DATA subspace, a
// product of one subspace per 16-bit chunk (src/bench/pattern.rs), so a
// contended lane's fold stays checkable; rotations would leave it. The
// host's DATA has every chunk nonzero, so the four values are distinct.
#define DSXOR_INDEP_MASK0 0xffffffffffffffffull
#define DSXOR_INDEP_MASK1 0x00000000ffffffffull
#define DSXOR_INDEP_MASK2 0xffff000000000000ull
#define DSXOR_INDEP_MASK3 0xffff0000ffffffffull

DSXOR_GLOBAL void dsxor_throughput_indep(const uint32_t *addr,
                                         const uint64_t *data, uint64_t *fold,
                                         uint64_t *lds_out, uint32_t iters,
                                         uint64_t dep_mask,
                                         uint32_t lds_qwords) {
  const uint32_t tid = __builtin_amdgcn_workitem_id_x();
  const uint32_t group = __builtin_amdgcn_workgroup_id_x();
  const uint32_t block = dsxor_block_dim();
  const uint32_t lane = group * block + tid;
  dsxor_lds_zero(tid, block, lds_qwords);
  dsxor_barrier();
  const uint32_t a = addr[lane];
  uint64_t d = data[lane];
  uint64_t f = 0;
  for (uint32_t i = 0; i + 4 <= iters; i += 4) {
    const uint64_t d0 = d & DSXOR_INDEP_MASK0;
    const uint64_t d1 = d & DSXOR_INDEP_MASK1;
    const uint64_t d2 = d & DSXOR_INDEP_MASK2;
    const uint64_t d3 = d & DSXOR_INDEP_MASK3;
    uint64_t r0, r1, r2, r3;
    __asm__ volatile("ds_xor_rtn_b64 %0, %4, %5\n\t"
                     "ds_xor_rtn_b64 %1, %4, %6\n\t"
                     "ds_xor_rtn_b64 %2, %4, %7\n\t"
                     "ds_xor_rtn_b64 %3, %4, %8\n\t" DSXOR_WAIT_DS
                     : "=&v"(r0), "=&v"(r1), "=&v"(r2), "=&v"(r3)
                     : "v"(a), "v"(d0), "v"(d1), "v"(d2), "v"(d3)
                     : "memory");
    const uint64_t r = r0 ^ r1 ^ r2 ^ r3;
    f ^= r;
    d ^= r & dep_mask;
  }
  fold[lane] = f;
  dsxor_barrier();
  dsxor_lds_dump(lds_out, (uint64_t)group * lds_qwords, tid, block,
                 lds_qwords);
}

// ---------------------------------------------------------------------------
// Soak kernel
//
//   dsxor_soak(addr, data, bad, active, err, lds_out, pairs, rot, lds_qwords)
//
// Zero the LDS, barrier, then every active lane issues 2 * pairs + 1
// ds_xor_rtn_b64 on addr[lane] + 4096 with DATA data[lane], checking each
// return as it comes; barrier, write the lane's error word, dump the LDS.
// No barrier between rounds: the waves of a group run their rounds freely
// against each other. The host (src/suite/soak/kernel.rs) chooses DATA so
// that a return is checkable alone (layouts: src/gen/soak.rs):
//   - the lanes sharing a qword have distinct one-bit low dwords (bit b, b
//     the lane's rank among them, at most 32), and each DATA's high dword is
//     rotl32(low dword, rot), rot in 1..31 and not 16;
//   - bad[lane] is the complement of the low dword of M, the XOR of the
//     DATA of the active lanes sharing the lane's qword.
// Every value that qword can hold is then an XOR of some of those DATA, so
// every correct return r satisfies, whatever the order of the lanes:
//   (a) r.lo & data.lo is the parity of this lane's own earlier rounds:
//       the DS instructions of one wave complete in issue order (as for the
//       throughput kernels: CLRX GcnInstrsDs.md "Any DS instruction return
//       data in order"; and the wait after each one), so round i sees
//       exactly i of this lane's own updates: own bit clear on even i, set
//       on odd i;
//   (b) r.lo & bad == 0: no bit of a lane that is not active at this qword;
//   (c) r.hi == rotl32(r.lo, rot): the rotation is linear over XOR, so it
//       holds for every XOR of the DATA; a dword swap gives rotl(lo, 2 rot)
//       != lo (rot != 16), a torn or low-dword-only qword breaks it.
// The round loop is unrolled by two after a first lone round, so which
// parity a round expects is static, and every check ORs into err, which
// no later round can clear. rot is a launch argument (uniform), so the
// rotation is one v_alignbit_b32. With an odd round count the final LDS
// is M at every qword in use and 0 elsewhere, which the host checks
// exactly (a dropped or stray write, an update by an inactive lane).
//
// The offset 4096 = {offset1 = 16, offset0 = 0} (RDNA3 ISA guide, "LDS
// Instructions": ADDR + {offset1, offset0}), one the conformance kernels
// ship, so a failing launch replays as a case with the same ADDR; a device
// ignoring offset1 lands 512 qwords low, in LDS no lane names, which the
// host reads back (every qword is zeroed and dumped). Inactive lanes hold
// DATA of their own rank too, a bit outside every M of their qword, and
// skip the rounds by a branch, so their EXEC bit is clear at every
// instruction: a device that runs them anyway puts their bit where (b) and
// the final LDS see it.
// ---------------------------------------------------------------------------
#define DSXOR_SOAK_OFFSET 4096

// rotl32(x, rot) as one v_alignbit_b32 x, x, 32 - rot: alignbit returns
// the low dword of {src0, src1} >> src2[4:0] (RDNA3 ISA guide, VOP3
// V_ALIGNBIT_B32), a right rotation by 32 - rot when both halves are x.
DSXOR_DEVICE uint32_t dsxor_rotl32(uint32_t x, uint32_t shr) {
  return __builtin_amdgcn_alignbit(x, x, shr);
}

#define DSXOR_SOAK_ROUND(BAD_MASK, EXPECT)                                     \
  do {                                                                         \
    uint64_t r;                                                                \
    __asm__ volatile("ds_xor_rtn_b64 %0, %1, %2 offset:" DSXOR_STR(            \
                         DSXOR_SOAK_OFFSET) "\n\t" DSXOR_WAIT_DS               \
                     : "=&v"(r)                                                \
                     : "v"(a), "v"(d)                                          \
                     : "memory");                                              \
    const uint32_t lo = (uint32_t)r;                                           \
    const uint32_t hi = (uint32_t)(r >> 32);                                   \
    e |= ((lo ^ (EXPECT)) & (BAD_MASK));                                       \
    erot |= hi ^ dsxor_rotl32(lo, shr);                                        \
  } while (0)

DSXOR_GLOBAL void dsxor_soak(const uint32_t *addr, const uint64_t *data,
                             const uint32_t *bad, const uint32_t *active,
                             uint64_t *err, uint64_t *lds_out, uint32_t pairs,
                             uint32_t rot, uint32_t lds_qwords) {
  const uint32_t tid = __builtin_amdgcn_workitem_id_x();
  const uint32_t group = __builtin_amdgcn_workgroup_id_x();
  const uint32_t block = dsxor_block_dim();
  const uint32_t lane = group * block + tid;
  dsxor_lds_zero(tid, block, lds_qwords);
  dsxor_barrier();
  uint32_t a = addr[lane];
  uint64_t d = data[lane];
  const uint32_t own = (uint32_t)d;
  // Round parity even: own bit and every bit outside M must be clear.
  const uint32_t mask = bad[lane] | own;
  const uint32_t shr = 32u - rot;
  uint32_t e = 0, erot = 0;
  // ADDR and DATA are in VGPRs of every lane before the branch (an empty
  // asm that "changes" them), so an inactive lane's registers hold its own
  // ADDR and DATA, not whatever the compiler left there: a device that
  // ignores EXEC then updates a known qword with a known bit.
  __asm__ volatile("" : "+v"(a), "+v"(d));
  if (active[lane] != 0) {
    DSXOR_SOAK_ROUND(mask, 0u);
    for (uint32_t i = 0; i < pairs; ++i) {
      DSXOR_SOAK_ROUND(mask, own);
      DSXOR_SOAK_ROUND(mask, 0u);
    }
  }
  err[lane] = ((uint64_t)erot << 32) | e;
  dsxor_barrier();
  dsxor_lds_dump(lds_out, (uint64_t)group * lds_qwords, tid, block,
                 lds_qwords);
}

// ---------------------------------------------------------------------------
// Leftover-LDS probe (`dsxor run --probe leftover-lds`)
//
//   dsxor_lds_fill(marker, lds_qwords)
//   dsxor_lds_listen(seen, visited, lds_qwords)
//
// LeftoverLocals (CVE-2023-4969, CERT VU#446598): on an RX 7900 XT a kernel
// could read the LDS other kernels had left behind. dsxor_lds_fill writes
// marker ^ i to qword i of its LDS and ends. dsxor_lds_listen, launched
// after it on the same device, writes nothing to LDS: it copies qword i to
// seen[group * lds_qwords + i] and stores i + 1 to visited[group *
// lds_qwords + i] (the host zeroes visited), so the host knows the whole
// allocation was read. Any marker ^ i in seen is LDS the writer left
// behind. An empty asm with a memory clobber keeps each kernel's LDS
// traffic from being dropped as dead (the fill's stores are never read by
// its own kernel; the listener reads memory it never wrote), while the
// accesses stay ds_store/ds_load (a volatile pointer would be a generic
// one, and flat).
// ---------------------------------------------------------------------------
DSXOR_GLOBAL void dsxor_lds_fill(uint64_t marker, uint32_t lds_qwords) {
  const uint32_t tid = __builtin_amdgcn_workitem_id_x();
  const uint32_t block = dsxor_block_dim();
  for (uint32_t i = tid; i < lds_qwords; i += block)
    dsxor_lds[i] = marker ^ i;
  __asm__ volatile("" ::: "memory");
}

DSXOR_GLOBAL void dsxor_lds_listen(uint64_t *seen, uint32_t *visited,
                                   uint32_t lds_qwords) {
  const uint32_t tid = __builtin_amdgcn_workitem_id_x();
  const uint32_t group = __builtin_amdgcn_workgroup_id_x();
  const uint32_t block = dsxor_block_dim();
  const uint64_t base = (uint64_t)group * lds_qwords;
  __asm__ volatile("" ::: "memory");
  for (uint32_t i = tid; i < lds_qwords; i += block) {
    seen[base + i] = dsxor_lds[i];
    visited[base + i] = i + 1;
  }
}

// ---------------------------------------------------------------------------
// In-flight probes (`dsxor run --probe back-to-back,exec-zero-in-flight`)
//
//   dsxor_probe_back_to_back(in, out)
//   dsxor_probe_exec_zero(in, out)
//
// Each work-item owns LDS qword tid (ADDR = tid * 8): no two lanes share an
// address, so every expected value below is exact. in[lane * 4 + 0..4] holds
// init, d1, d2, d3; the kernel stores init to its qword and waits, then runs
// three ds_xor_rtn_b64 with no wait between them and one wait after the
// last, and stores r1, r2, r3 and the qword's final value to
// out[lane * 4 + 0..4].
//
// back_to_back: the returns must chain, r1 = init, r2 = init ^ d1,
// r3 = init ^ d1 ^ d2, final = init ^ d1 ^ d2 ^ d3: DS instructions of one
// wave return in the order issued (LLVM SIInsertWaitcnts.cpp: "Instructions
// of a given type are returned in order ... We rely on this in-order
// completion"), so a positive control: the compiler's own waits assume it.
//
// exec_zero: EXEC is saved and set to 0 between the first and the second
// atomic, and restored before the third. The second touches no lane,
// whether the wave skips it or issues it with no lane on (RDNA3 ISA guide
// §3.2.3 "Instruction Skipping: EXEC==0"), while the first is still in
// flight: r1 = init, r2 keeps what the host put in out[lane * 4 + 1],
// r3 = init ^ d1, final = init ^ d1 ^ d3. The 64-bit moves of EXEC serve
// both wave sizes (in wave32 only EXEC_LO is the mask).
//
// VDST is early-clobber ("=&v"), so no return register overlaps an ADDR or
// DATA register a later atomic of the same asm still reads.
// ---------------------------------------------------------------------------
DSXOR_DEVICE const uint64_t *dsxor_probe_slot(const uint64_t *base) {
  const uint32_t lane =
      __builtin_amdgcn_workgroup_id_x() * dsxor_block_dim() +
      __builtin_amdgcn_workitem_id_x();
  return base + (uint64_t)lane * 4;
}

DSXOR_GLOBAL void dsxor_probe_back_to_back(const uint64_t *in, uint64_t *out) {
  const uint32_t tid = __builtin_amdgcn_workitem_id_x();
  const uint64_t *v = dsxor_probe_slot(in);
  uint64_t *o = (uint64_t *)dsxor_probe_slot(out);
  const uint32_t a = tid * 8;
  dsxor_lds[tid] = v[0];
  __asm__ volatile(DSXOR_WAIT_DS ::: "memory");
  uint64_t r1, r2, r3;
  __asm__ volatile("ds_xor_rtn_b64 %0, %3, %4\n\t"
                   "ds_xor_rtn_b64 %1, %3, %5\n\t"
                   "ds_xor_rtn_b64 %2, %3, %6\n\t" DSXOR_WAIT_DS
                   : "=&v"(r1), "=&v"(r2), "=&v"(r3)
                   : "v"(a), "v"(v[1]), "v"(v[2]), "v"(v[3])
                   : "memory");
  o[0] = r1;
  o[1] = r2;
  o[2] = r3;
  o[3] = dsxor_lds[tid];
}

DSXOR_GLOBAL void dsxor_probe_exec_zero(const uint64_t *in, uint64_t *out) {
  const uint32_t tid = __builtin_amdgcn_workitem_id_x();
  const uint64_t *v = dsxor_probe_slot(in);
  uint64_t *o = (uint64_t *)dsxor_probe_slot(out);
  const uint32_t a = tid * 8;
  dsxor_lds[tid] = v[0];
  __asm__ volatile(DSXOR_WAIT_DS ::: "memory");
  uint64_t r1, r3, saved;
  uint64_t r2 = o[1];
  __asm__ volatile("ds_xor_rtn_b64 %0, %4, %5\n\t"
                   "s_mov_b64 %3, exec\n\t"
                   "s_mov_b64 exec, 0\n\t"
                   "ds_xor_rtn_b64 %1, %4, %6\n\t"
                   "s_mov_b64 exec, %3\n\t"
                   "ds_xor_rtn_b64 %2, %4, %7\n\t" DSXOR_WAIT_DS
                   : "=&v"(r1), "+v"(r2), "=&v"(r3), "=&s"(saved)
                   : "v"(a), "v"(v[1]), "v"(v[2]), "v"(v[3])
                   : "memory");
  o[0] = r1;
  o[1] = r2;
  o[2] = r3;
  o[3] = dsxor_lds[tid];
}

// ---------------------------------------------------------------------------
// Probes of what a wait covers (`dsxor run --probe unused-vdst-lanes,
// smem-in-flight`)
//
//   dsxor_probe_unused_lanes(in, out)
//   dsxor_probe_smem_in_flight(in, out)
//
// Slots as above: in[lane * 4 + 0..4], out[lane * 4 + 0..4], LDS qword tid
// per work-item.
//
// unused_lanes: in = init, d1, marker, -. The even lanes of each wave run
// one ds_xor_rtn_b64 into r (r starts as out[0], which the host fills);
// before the wait, the odd lanes write marker into the same r. Mesa's
// src/amd/compiler/README-ISA.md: "On GFX11, we can't safely read/write
// unused lanes of VMEM/DS destination VGPRs without waiting for the load to
// finish." So an odd lane may end holding marker (the write kept) or the
// value r had when the atomic issued (the write lost); either is the
// documented behaviour, and nothing else is. An even lane returns init and
// leaves init ^ d1; an odd lane's qword keeps init. out[0] = r,
// out[1] = the qword's final value; out[2], out[3] are not written.
//
// smem_in_flight: in = init, d1, -, -. After a full wait, one
// ds_xor_rtn_b64 into r (r starts as out[0]), then one s_load_b64 into s
// (s starts as in[2], from the start of in: s loads in[0]), then
// s_waitcnt lgkmcnt(1), copies of r and s, and a full wait. LGKM_CNT counts
// both, and SMEM may return out of order (RDNA3 ISA guide §5.6; LLVM
// SIInsertWaitcnts.cpp, which waits for lgkmcnt(0) whenever SMEM is
// pending), so the partial wait guarantees only that one of the two has
// returned: the early copies may show either result still out, never both.
// After the full wait, r = init and s = in[0]. out[0] = early r,
// out[1] = early s, out[2] = r, out[3] = s. gfx12 counts DS and SMEM apart
// (s_wait_dscnt, s_wait_kmcnt), so the kernel is not built there.
//
// Each reads r or s before its wait on purpose: that is the probe. The
// early copies use v_lshlrev_b64 by 0 (a 64-bit VALU move every target
// here has).
// ---------------------------------------------------------------------------
DSXOR_GLOBAL void dsxor_probe_unused_lanes(const uint64_t *in, uint64_t *out) {
  const uint32_t tid = __builtin_amdgcn_workitem_id_x();
  const uint64_t *v = dsxor_probe_slot(in);
  uint64_t *o = (uint64_t *)dsxor_probe_slot(out);
  const uint32_t a = tid * 8;
  dsxor_lds[tid] = v[0];
  __asm__ volatile(DSXOR_WAIT_DS ::: "memory");
  uint64_t r = o[0];
  // s[44:45] holds EXEC, s[46:47] every other lane of a wave (EXEC bit i
  // is lane i of the wave, and waves start at multiples of the wave size,
  // so lane parity is tid's). Physical SGPRs named in the asm, not "s"
  // operands: at -O0 the compiler keeps values in VGPRs and cannot satisfy
  // an "s" constraint, and a user's unoptimised build must still compile.
  __asm__ volatile("s_mov_b64 s[44:45], exec\n\t"
                   "s_mov_b32 s46, 0x55555555\n\t"
                   "s_mov_b32 s47, 0x55555555\n\t"
                   "s_and_b64 exec, s[44:45], s[46:47]\n\t"
                   "ds_xor_rtn_b64 %0, %1, %2\n\t"
                   "s_andn2_b64 exec, s[44:45], s[46:47]\n\t"
                   "v_lshlrev_b64 %0, 0, %3\n\t"
                   "s_mov_b64 exec, s[44:45]\n\t" DSXOR_WAIT_DS
                   : "+v"(r)
                   : "v"(a), "v"(v[1]), "v"(v[2])
                   : "memory", "s44", "s45", "s46", "s47");
  o[0] = r;
  o[1] = dsxor_lds[tid];
}

// ---------------------------------------------------------------------------
// VDST past the VGPR allocation (`dsxor run --probe vdst-out-of-range`)
//
//   dsxor_probe_vdst_range(in, out)
//
// Slots as above; in = init, d1, d2, -. After a full wait, one
// ds_xor_rtn_b64 with d1 whose VDST is v[250:251], then a full wait, then
// an in-range ds_xor_rtn_b64 with d2 into r and a full wait. v[250:251] is
// named in the asm text only, with no operand and no clobber, so the
// compiler's VGPR count, and with it the descriptor's
// GRANULATED_WORKITEM_VGPR_COUNT, leaves it out (the host checks that the
// allocation ends below v250 before it trusts the probe). RDNA3 ISA guide
// §3.3.3: an LDS atomic with return whose destination VGPRs are out of
// range is issued as if EXEC were 0, so the first atomic changes nothing:
// r = init, and the qword ends init ^ d2. out[0] = r, out[1] = the qword's
// final value; out[2], out[3] are not written. The second atomic is the
// control: the wave's LDS atomics work.
// ---------------------------------------------------------------------------
DSXOR_GLOBAL void dsxor_probe_vdst_range(const uint64_t *in, uint64_t *out) {
  const uint32_t tid = __builtin_amdgcn_workitem_id_x();
  const uint64_t *v = dsxor_probe_slot(in);
  uint64_t *o = (uint64_t *)dsxor_probe_slot(out);
  const uint32_t a = tid * 8;
  dsxor_lds[tid] = v[0];
  __asm__ volatile(DSXOR_WAIT_DS ::: "memory");
  uint64_t r;
  __asm__ volatile("ds_xor_rtn_b64 v[250:251], %1, %2\n\t" DSXOR_WAIT_DS "\n\t"
                   "ds_xor_rtn_b64 %0, %1, %3\n\t" DSXOR_WAIT_DS
                   : "=&v"(r)
                   : "v"(a), "v"(v[1]), "v"(v[2])
                   : "memory");
  o[0] = r;
  o[1] = dsxor_lds[tid];
}

#if !defined(__GFX12__)
// gfx11 renamed the scalar loads (llvm/test/MC/AMDGPU/gfx11_asm_smem.s).
#if defined(__GFX11__)
#define DSXOR_SMEM_LOAD_B64 "s_load_b64"
#else
#define DSXOR_SMEM_LOAD_B64 "s_load_dwordx2"
#endif

DSXOR_GLOBAL void dsxor_probe_smem_in_flight(const uint64_t *in, uint64_t *out) {
  const uint32_t tid = __builtin_amdgcn_workitem_id_x();
  const uint64_t *v = dsxor_probe_slot(in);
  uint64_t *o = (uint64_t *)dsxor_probe_slot(out);
  const uint32_t a = tid * 8;
  dsxor_lds[tid] = v[0];
  __asm__ volatile(DSXOR_WAIT_DS ::: "memory");
  const uint64_t base = (uint64_t)in, s_before = in[2];
  uint64_t r = o[0], s, early_r, early_s;
  // s is s[40:41], the load's base s[42:43]: physical SGPRs filled with
  // v_readfirstlane_b32 inside the asm (both values are uniform), not "s"
  // operands, which the compiler cannot satisfy at -O0. s_nop 4 covers the
  // wait states a VALU SGPR write needs before an SMEM read on targets
  // that have that hazard.
  __asm__ volatile("v_readfirstlane_b32 s42, %4\n\t"
                   "v_readfirstlane_b32 s43, %5\n\t"
                   "v_readfirstlane_b32 s40, %6\n\t"
                   "v_readfirstlane_b32 s41, %7\n\t"
                   "s_nop 4\n\t"
                   "s_waitcnt lgkmcnt(0)\n\t"
                   "ds_xor_rtn_b64 %0, %8, %9\n\t"
                   DSXOR_SMEM_LOAD_B64 " s[40:41], s[42:43], 0x0\n\t"
                   "s_waitcnt lgkmcnt(1)\n\t"
                   "v_lshlrev_b64 %2, 0, %0\n\t"
                   "v_lshlrev_b64 %3, 0, s[40:41]\n\t"
                   "s_waitcnt lgkmcnt(0)\n\t"
                   "v_lshlrev_b64 %1, 0, s[40:41]"
                   : "+v"(r), "=&v"(s), "=&v"(early_r), "=&v"(early_s)
                   : "v"((uint32_t)base), "v"((uint32_t)(base >> 32)),
                     "v"((uint32_t)s_before), "v"((uint32_t)(s_before >> 32)),
                     "v"(a), "v"(v[1])
                   : "memory", "s40", "s41", "s42", "s43");
  o[0] = early_r;
  o[1] = early_s;
  o[2] = r;
  o[3] = s;
}
#endif

// ---------------------------------------------------------------------------
// ALU qualification harness (gfx11 only; `dsxor qualify`)
//
//   dsxor_alu_harness(vin, sin, vout, sout)
//
// One wave. Each lane loads the VGPR block v16..v23 from vin[lane * 8 + i];
// the wave loads the SGPR block s32..s39 from sin[0..8], VCC from sin[8..10]
// (low, high), EXEC from sin[10..12] and SCC from sin[12] != 0. Then the
// program slot runs: DSXOR_ALU_SLOT_DWORDS `s_nop 0` between the labels
// `dsxor_alu_harness.slot` and `dsxor_alu_harness.slot_end`, which
// `dsxor qualify` overwrites with a program encoded by dsxor's own
// encoders (src/isa/alu.rs), leaving the rest of the slot as s_nop. After
// the slot SCC, VCC and EXEC are captured, EXEC is restored, and every lane
// stores its VGPR block to vout[lane * 8 + i] (lanes the program's EXEC
// left off keep their input), lane 0 the SGPR block, VCC, EXEC and SCC to
// sout[0..13] in sin's layout.
//
// The registers are pinned with physical-register constraints ("{v16}",
// "{s32}"), so a program names them directly. The 64-bit moves of EXEC and
// VCC serve both wave sizes: in wave32 only EXEC_LO and VCC_LO are masks
// (RDNA3 ISA guide, "Wave32 and wave64": the high halves are not used as
// masks), and qualify compares EXEC's low half only there.
// s_waitcnt_depctr 0xfffe (sa_sdst(0)) after the slot is LLVM's fix for
// gfx11's VALU-mask-write hazard (GCNHazardRecognizer::fixVALUMaskWriteHazard:
// a VALU that read an SGPR as a lane mask, then an SALU writing it), since
// the harness writes EXEC right after a program that may read masks.
// ---------------------------------------------------------------------------
#if defined(__GFX11__)
#define DSXOR_ALU_SLOT_DWORDS 32

DSXOR_GLOBAL void dsxor_alu_harness(const uint32_t *__restrict__ vin,
                                    const uint32_t *__restrict__ sin,
                                    uint32_t *__restrict__ vout,
                                    uint32_t *__restrict__ sout) {
  const uint32_t tid = __builtin_amdgcn_workitem_id_x();
  const uint32_t *in = vin + tid * 8;
  uint32_t v0 = in[0], v1 = in[1], v2 = in[2], v3 = in[3];
  uint32_t v4 = in[4], v5 = in[5], v6 = in[6], v7 = in[7];
  // readfirstlane, inside the asm operands: the SGPR inputs are uniform,
  // but at -O0/-O1 the compiler keeps them in VGPRs (or spills locals to
  // scratch and reloads them into VGPRs), and an "s" constraint on a VGPR
  // value is an "illegal VGPR to SGPR copy"; user builds compile this file
  // at every -O level.
// (readfirstlane returns an int: the casts keep the low half from being
// sign-extended into the high one.)
#define DSXOR_SIN(i) ((uint32_t)__builtin_amdgcn_readfirstlane(sin[i]))
#define DSXOR_SIN64(i) (DSXOR_SIN(i) | (uint64_t)DSXOR_SIN(i + 1) << 32)
  uint32_t s0, s1, s2, s3, s4, s5, s6, s7;
  uint64_t saved, vcc_out, exec_out;
  uint32_t scc_out;
  __asm__ volatile(
      "s_mov_b64 %[saved], exec\n\t"
      "s_mov_b64 vcc, %[vcc_in]\n\t"
      "s_cmp_lg_u32 %[scc_in], 0\n\t"
      "s_mov_b64 exec, %[exec_in]\n"
      "dsxor_alu_harness.slot:\n\t"
      ".rept " DSXOR_STR(DSXOR_ALU_SLOT_DWORDS) "\n\t"
      "s_nop 0\n\t"
      ".endr\n"
      "dsxor_alu_harness.slot_end:\n\t"
      "s_cselect_b32 %[scc_out], 1, 0\n\t"
      "s_mov_b64 %[vcc_out], vcc\n\t"
      "s_mov_b64 %[exec_out], exec\n\t"
      "s_waitcnt_depctr 0xfffe\n\t"
      "s_mov_b64 exec, %[saved]"
      : "+{v16}"(v0), "+{v17}"(v1), "+{v18}"(v2), "+{v19}"(v3),
        "+{v20}"(v4), "+{v21}"(v5), "+{v22}"(v6), "+{v23}"(v7),
        "={s32}"(s0), "={s33}"(s1), "={s34}"(s2), "={s35}"(s3),
        "={s36}"(s4), "={s37}"(s5), "={s38}"(s6), "={s39}"(s7),
        [saved] "=&s"(saved), [vcc_out] "=&s"(vcc_out),
        [exec_out] "=&s"(exec_out), [scc_out] "=&s"(scc_out)
      : "{s32}"(DSXOR_SIN(0)), "{s33}"(DSXOR_SIN(1)), "{s34}"(DSXOR_SIN(2)),
        "{s35}"(DSXOR_SIN(3)), "{s36}"(DSXOR_SIN(4)), "{s37}"(DSXOR_SIN(5)),
        "{s38}"(DSXOR_SIN(6)), "{s39}"(DSXOR_SIN(7)),
        [vcc_in] "s"(DSXOR_SIN64(8)), [exec_in] "s"(DSXOR_SIN64(10)),
        [scc_in] "s"(DSXOR_SIN(12))
      : "vcc", "scc", "memory");
#undef DSXOR_SIN64
#undef DSXOR_SIN
  uint32_t *out = vout + tid * 8;
  out[0] = v0; out[1] = v1; out[2] = v2; out[3] = v3;
  out[4] = v4; out[5] = v5; out[6] = v6; out[7] = v7;
  if (tid == 0) {
    sout[0] = s0; sout[1] = s1; sout[2] = s2; sout[3] = s3;
    sout[4] = s4; sout[5] = s5; sout[6] = s6; sout[7] = s7;
    sout[8] = (uint32_t)vcc_out;
    sout[9] = (uint32_t)(vcc_out >> 32);
    sout[10] = (uint32_t)exec_out;
    sout[11] = (uint32_t)(exec_out >> 32);
    sout[12] = scc_out;
  }
}
#endif
