//! Kernarg segments, laid out from a kernel's metadata (`.args` with
//! `.offset`, `.size`, `.value_kind`; `.kernarg_segment_size`) and filled
//! the way the HIP runtime fills them.
//!
//! Hidden arguments (AMDGPUUsage.rst, "Code Object V5 Metadata", table
//! "AMDHSA Code Object V5 Kernel Argument Metadata Map Additions") are
//! written as ROCclr does for `hipModuleLaunchKernel`
//! (rocclr/device/rocm/rocvirtual.cpp, `VirtualGPU::submitKernelInternal`;
//! hipamd/src/hip_module.cpp builds a 3-dimensional NDRange):
//! - `hidden_block_count_{x,y,z}` = global / local work-items per dimension
//!   (the number of workgroups),
//! - `hidden_group_size_{x,y,z}` = the workgroup size,
//! - `hidden_remainder_{x,y,z}` = global % local (0 for a grid of whole
//!   workgroups, which is all a HIP launch can express),
//! - `hidden_global_offset_{x,y,z}` = 0, `hidden_grid_dims` = 3,
//! - `hidden_dynamic_lds_size` = the launch's dynamic LDS bytes,
//! - every other hidden kind (printf/hostcall/heap buffers, queue and
//!   aperture pointers, multigrid sync) = 0. Policy: dsxor's kernels use
//!   none of them; a kernel that dereferences one would fault, which the
//!   emulator reports rather than invent a buffer.
//!
//! Each value is written little-endian over the argument's `.size` bytes,
//! as ROCclr's `WriteAqlArgAt` does.

use super::metadata::{KernelMetadata, ValueKind};
use super::CodeObjectError;

/// One scalar or buffer argument of a kernel, in the kernel's argument
/// order (explicit arguments only: the hidden ones are filled from
/// [`LaunchDims`] and the metadata).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgValue {
    /// A global pointer to buffer `i` of the launch (`Dispatch::buffers[i]`
    /// in `backend`).
    Buffer(usize),
    U32(u32),
    U64(u64),
}

/// Grid and workgroup shape of one launch, in workgroups and work-items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDims {
    /// Workgroups per dimension.
    pub groups: [u32; 3],
    /// Work-items per workgroup per dimension.
    pub group_size: [u32; 3],
    /// Dynamic LDS bytes.
    pub dynamic_lds: u32,
}

impl LaunchDims {
    /// A 1-D launch of `groups` workgroups of `block` work-items.
    pub fn linear(groups: u32, block: u32, dynamic_lds: u32) -> LaunchDims {
        LaunchDims {
            groups: [groups, 1, 1],
            group_size: [block, 1, 1],
            dynamic_lds,
        }
    }
}

/// A laid-out kernarg segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernarg {
    /// The whole segment (`.kernarg_segment_size` bytes): explicit and hidden.
    pub bytes: Vec<u8>,
    /// Bytes of explicit arguments at the start (what a caller supplies);
    /// the rest of `bytes` is the hidden arguments, filled here as the HIP
    /// runtime fills them (`backend::hip` hands the whole segment to
    /// `hipModuleLaunchKernel`).
    pub explicit_size: usize,
    /// `.kernarg_segment_align`.
    pub align: u32,
    /// (byte offset, buffer index) of every global buffer pointer written.
    pub buffer_slots: Vec<(u32, usize)>,
}

fn write_le(bytes: &mut [u8], offset: u32, size: u32, value: u64) -> Result<(), String> {
    let start = offset as usize;
    let end = start
        .checked_add(size as usize)
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| {
            format!(
                "argument at {offset} of {size} bytes runs past the {}-byte segment",
                bytes.len()
            )
        })?;
    let le = value.to_le_bytes();
    for (i, b) in bytes[start..end].iter_mut().enumerate() {
        *b = le.get(i).copied().unwrap_or(0);
    }
    Ok(())
}

/// Lay out the kernarg segment of `kernel`: explicit arguments from `args`
/// (in the kernel's argument order; `ArgValue::Buffer(i)` becomes
/// `buffer_addresses[i]`), hidden arguments from `launch`.
pub fn build_kernarg(
    kernel: &KernelMetadata,
    args: &[ArgValue],
    buffer_addresses: &[u64],
    launch: &LaunchDims,
) -> Result<Kernarg, CodeObjectError> {
    let err = |why: String| CodeObjectError::Kernarg {
        kernel: kernel.name.clone(),
        why,
    };
    let explicit: Vec<_> = kernel.explicit_args().collect();
    if explicit.len() != args.len() {
        return Err(err(format!(
            "the kernel takes {} explicit arguments, {} given",
            explicit.len(),
            args.len()
        )));
    }
    if launch
        .group_size
        .iter()
        .any(|&g| g == 0 || g > u32::from(u16::MAX))
    {
        return Err(err(format!(
            "workgroup size {:?}: each dimension must be 1..=65535 (hidden_group_size is 16 bits)",
            launch.group_size
        )));
    }
    let size = kernel.kernarg_segment_size as usize;
    let mut bytes = vec![0u8; size];
    let mut buffer_slots = Vec::new();
    for (i, (a, v)) in explicit.iter().zip(args).enumerate() {
        let (value, want) = match (&a.value_kind, v) {
            (ValueKind::GlobalBuffer, ArgValue::Buffer(b)) => {
                let addr = *buffer_addresses.get(*b).ok_or_else(|| {
                    err(format!(
                        "argument {i} is buffer {b} but only {} buffer addresses were given",
                        buffer_addresses.len()
                    ))
                })?;
                buffer_slots.push((a.offset, *b));
                (addr, 8)
            }
            (ValueKind::ByValue, ArgValue::U32(x)) => (u64::from(*x), 4),
            (ValueKind::ByValue, ArgValue::U64(x)) => (*x, 8),
            (k, v) => {
                return Err(err(format!(
                    "argument {i} is {} ({} bytes), given {v:?}",
                    k.as_str(),
                    a.size
                )))
            }
        };
        if a.size != want {
            return Err(err(format!(
                "argument {i} ({}) is {} bytes, given a {want}-byte {v:?}",
                a.value_kind.as_str(),
                a.size
            )));
        }
        write_le(&mut bytes, a.offset, a.size, value).map_err(&err)?;
    }
    let [gx, gy, gz] = launch.groups;
    let [lx, ly, lz] = launch.group_size;
    for a in kernel.args.iter().filter(|a| a.value_kind.is_hidden()) {
        let value = match a.value_kind {
            ValueKind::HiddenBlockCountX => u64::from(gx),
            ValueKind::HiddenBlockCountY => u64::from(gy),
            ValueKind::HiddenBlockCountZ => u64::from(gz),
            ValueKind::HiddenGroupSizeX => u64::from(lx),
            ValueKind::HiddenGroupSizeY => u64::from(ly),
            ValueKind::HiddenGroupSizeZ => u64::from(lz),
            // global = groups * local, so global % local = 0.
            ValueKind::HiddenRemainderX
            | ValueKind::HiddenRemainderY
            | ValueKind::HiddenRemainderZ => 0,
            ValueKind::HiddenGlobalOffsetX
            | ValueKind::HiddenGlobalOffsetY
            | ValueKind::HiddenGlobalOffsetZ => 0,
            ValueKind::HiddenGridDims => 3,
            ValueKind::HiddenDynamicLdsSize => u64::from(launch.dynamic_lds),
            _ => 0,
        };
        write_le(&mut bytes, a.offset, a.size, value).map_err(&err)?;
    }
    Ok(Kernarg {
        bytes,
        explicit_size: kernel.explicit_kernarg_size() as usize,
        align: kernel.kernarg_segment_align,
        buffer_slots,
    })
}
