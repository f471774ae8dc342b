//! Kernel descriptors: the 64-byte `<kernel>.kd` object (AMDGPUUsage.rst,
//! "Kernel Descriptor"; field offsets from llvm/Support/AMDHSAKernelDescriptor.h).

use super::elf::Bytes;
use super::CodeObjectError;

/// Size of a kernel descriptor (`sizeof(kernel_descriptor_t)`).
pub const KERNEL_DESCRIPTOR_SIZE: u64 = 64;

/// The fields of one kernel descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelDescriptor {
    /// Static LDS bytes (dynamic LDS comes after it).
    pub group_segment_fixed_size: u32,
    /// Scratch bytes per work-item.
    pub private_segment_fixed_size: u32,
    pub kernarg_size: u32,
    /// Entry point minus the descriptor's own address (may be negative).
    pub kernel_code_entry_byte_offset: i64,
    /// GFX10+ and GFX90A+ (zero before).
    pub compute_pgm_rsrc3: u32,
    pub compute_pgm_rsrc1: u32,
    pub compute_pgm_rsrc2: u32,
    pub kernel_code_properties: u16,
    pub kernarg_preload: u16,
}

fn bits(v: u32, shift: u32, width: u32) -> u32 {
    (v >> shift) & ((1u32 << width) - 1)
}

impl KernelDescriptor {
    pub fn parse(raw: &[u8]) -> Result<KernelDescriptor, CodeObjectError> {
        let b = Bytes::new(raw);
        let what = "kernel descriptor";
        b.slice(0, KERNEL_DESCRIPTOR_SIZE, what)?;
        Ok(KernelDescriptor {
            group_segment_fixed_size: b.u32(0, what)?,
            private_segment_fixed_size: b.u32(4, what)?,
            kernarg_size: b.u32(8, what)?,
            kernel_code_entry_byte_offset: b.u64(16, what)? as i64,
            compute_pgm_rsrc3: b.u32(44, what)?,
            compute_pgm_rsrc1: b.u32(48, what)?,
            compute_pgm_rsrc2: b.u32(52, what)?,
            kernel_code_properties: b.u16(56, what)?,
            kernarg_preload: b.u16(58, what)?,
        })
    }

    /// COMPUTE_PGM_RSRC2.ENABLE_PRIVATE_SEGMENT (bit 0).
    pub fn enable_private_segment(&self) -> bool {
        bits(self.compute_pgm_rsrc2, 0, 1) != 0
    }
    /// COMPUTE_PGM_RSRC2.USER_SGPR_COUNT (bits 5:1, GFX6–GFX12.0).
    pub fn user_sgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 1, 5)
    }
    /// COMPUTE_PGM_RSRC2.ENABLE_SGPR_WORKGROUP_ID_X/Y/Z (bits 7, 8, 9).
    pub fn enable_sgpr_workgroup_id(&self) -> [bool; 3] {
        [7, 8, 9].map(|s| bits(self.compute_pgm_rsrc2, s, 1) != 0)
    }
    /// COMPUTE_PGM_RSRC2.ENABLE_VGPR_WORKITEM_ID (bits 12:11): 0 = X, 1 = X,Y, 2 = X,Y,Z.
    pub fn enable_vgpr_workitem_id(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 11, 2)
    }
    /// KERNEL_CODE_PROPERTY.ENABLE_SGPR_* (bits 6:0) in user-SGPR order:
    /// private segment buffer, dispatch ptr, queue ptr, kernarg segment ptr,
    /// dispatch id, flat scratch init, private segment size.
    pub fn enable_sgpr(&self, bit: u32) -> bool {
        bit < 7 && (self.kernel_code_properties >> bit) & 1 != 0
    }
    /// KERNEL_CODE_PROPERTY.ENABLE_SGPR_KERNARG_SEGMENT_PTR (bit 3).
    pub fn enable_sgpr_kernarg_segment_ptr(&self) -> bool {
        self.enable_sgpr(3)
    }
    /// KERNEL_CODE_PROPERTY.ENABLE_WAVEFRONT_SIZE32 (bit 10, GFX10+).
    pub fn enable_wavefront_size32(&self) -> bool {
        (self.kernel_code_properties >> 10) & 1 != 0
    }
    /// KERNEL_CODE_PROPERTY.USES_DYNAMIC_STACK (bit 11).
    pub fn uses_dynamic_stack(&self) -> bool {
        (self.kernel_code_properties >> 11) & 1 != 0
    }
    /// COMPUTE_PGM_RSRC3_GFX90A.ACCUM_OFFSET (bits 5:0): the first AGPR-free
    /// VGPR, in units of 4 minus 1 (gfx90a/gfx942 only).
    pub fn accum_offset(&self) -> u32 {
        (bits(self.compute_pgm_rsrc3, 0, 6) + 1) * 4
    }
    /// COMPUTE_PGM_RSRC1.WGP_MODE (bit 29; GFX6-GFX9 reserved 0, GFX10+:
    /// 1 = the waves of a workgroup may run on both CUs of a WGP, 0 = on one
    /// CU). AMDGPUUsage.rst, table "compute_pgm_rsrc1 for GFX6-GFX12";
    /// LLVM's `AMDHSAKernelDescriptor.h` `COMPUTE_PGM_RSRC1_WGP_MODE` at
    /// shift 29, printed by llvm-objdump as `.amdhsa_workgroup_processor_mode`
    /// (AMDGPUDisassembler.cpp), which `tests/it/emu_modes_shapes_llvm.rs` holds this to.
    pub fn wgp_mode(&self) -> bool {
        bits(self.compute_pgm_rsrc1, 29, 1) != 0
    }
    /// COMPUTE_PGM_RSRC1.GRANULATED_WORKITEM_VGPR_COUNT (bits 5:0): the
    /// VGPR blocks a work-item is given, minus 1.
    pub fn granulated_workitem_vgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 0, 6)
    }
    /// The VGPRs a wave of this kernel is given, as its descriptor says:
    /// (GRANULATED_WORKITEM_VGPR_COUNT + 1) blocks of the encoding granule.
    /// The compiler writes the count as `ceil(vgprs / granule) - 1`
    /// (AMDGPUAsmPrinter.cpp `getSIProgramInfo`, `VGPRBlocks`), with the
    /// granule of AMDGPUBaseInfo.cpp `getVGPREncodingGranule`: 8 on gfx90a
    /// and later CDNA (VGPRs and AGPRs in one file) and for wave32 on
    /// GFX10+, 4 otherwise. llvm-objdump prints this figure as
    /// `.amdhsa_next_free_vgpr` (AMDGPUDisassembler.cpp), which
    /// `tests/it/host_codeobj_llvm.rs` holds it to. Hardware may round the
    /// allocation up further (to its allocation granule), never down.
    pub fn vgpr_allocation(&self, family: crate::isa::Family) -> u32 {
        use crate::isa::Family::*;
        let granule = match family {
            Gfx90a | Gfx942 | Gfx950 => 8,
            Gfx9 => 4,
            Gfx10 | Gfx11 | Gfx12 | Gfx1250 if self.enable_wavefront_size32() => 8,
            Gfx10 | Gfx11 | Gfx12 | Gfx1250 => 4,
        };
        (self.granulated_workitem_vgpr_count() + 1) * granule
    }
}
