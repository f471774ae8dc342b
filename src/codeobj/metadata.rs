//! The `NT_AMDGPU_METADATA` note: a MessagePack map (AMDGPUUsage.rst, "Code
//! Object V3 Metadata" and its V4/V5/V6 amendments) with `amdhsa.version`,
//! `amdhsa.target` and `amdhsa.kernels`, one map per kernel.

use rmpv::Value;

use super::CodeObjectError;

/// NT_AMDGPU_METADATA (llvm/BinaryFormat/ELF.h), note name "AMDGPU".
pub const NT_AMDGPU_METADATA: u32 = 32;
pub const NOTE_NAME_AMDGPU: &[u8] = b"AMDGPU";

/// Deep enough for the real schema (4 levels), shallow enough that hostile
/// nesting cannot exhaust the stack.
const MAX_DEPTH: usize = 16;

/// An argument's `.value_kind` (AMDGPUUsage.rst, "AMDHSA Code Object V3
/// Kernel Argument Metadata Map", plus the V5 hidden kinds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueKind {
    ByValue,
    GlobalBuffer,
    DynamicSharedPointer,
    Sampler,
    Image,
    Pipe,
    Queue,
    HiddenGlobalOffsetX,
    HiddenGlobalOffsetY,
    HiddenGlobalOffsetZ,
    HiddenNone,
    HiddenPrintfBuffer,
    HiddenHostcallBuffer,
    HiddenDefaultQueue,
    HiddenCompletionAction,
    HiddenMultigridSyncArg,
    HiddenBlockCountX,
    HiddenBlockCountY,
    HiddenBlockCountZ,
    HiddenGroupSizeX,
    HiddenGroupSizeY,
    HiddenGroupSizeZ,
    HiddenRemainderX,
    HiddenRemainderY,
    HiddenRemainderZ,
    HiddenGridDims,
    HiddenHeapV1,
    HiddenDynamicLdsSize,
    HiddenPrivateBase,
    HiddenSharedBase,
    HiddenQueuePtr,
    /// Any other `hidden_*` kind or a kind newer than this table.
    Other(String),
}

const KINDS: &[(&str, ValueKind)] = &[
    ("by_value", ValueKind::ByValue),
    ("global_buffer", ValueKind::GlobalBuffer),
    ("dynamic_shared_pointer", ValueKind::DynamicSharedPointer),
    ("sampler", ValueKind::Sampler),
    ("image", ValueKind::Image),
    ("pipe", ValueKind::Pipe),
    ("queue", ValueKind::Queue),
    ("hidden_global_offset_x", ValueKind::HiddenGlobalOffsetX),
    ("hidden_global_offset_y", ValueKind::HiddenGlobalOffsetY),
    ("hidden_global_offset_z", ValueKind::HiddenGlobalOffsetZ),
    ("hidden_none", ValueKind::HiddenNone),
    ("hidden_printf_buffer", ValueKind::HiddenPrintfBuffer),
    ("hidden_hostcall_buffer", ValueKind::HiddenHostcallBuffer),
    ("hidden_default_queue", ValueKind::HiddenDefaultQueue),
    (
        "hidden_completion_action",
        ValueKind::HiddenCompletionAction,
    ),
    (
        "hidden_multigrid_sync_arg",
        ValueKind::HiddenMultigridSyncArg,
    ),
    ("hidden_block_count_x", ValueKind::HiddenBlockCountX),
    ("hidden_block_count_y", ValueKind::HiddenBlockCountY),
    ("hidden_block_count_z", ValueKind::HiddenBlockCountZ),
    ("hidden_group_size_x", ValueKind::HiddenGroupSizeX),
    ("hidden_group_size_y", ValueKind::HiddenGroupSizeY),
    ("hidden_group_size_z", ValueKind::HiddenGroupSizeZ),
    ("hidden_remainder_x", ValueKind::HiddenRemainderX),
    ("hidden_remainder_y", ValueKind::HiddenRemainderY),
    ("hidden_remainder_z", ValueKind::HiddenRemainderZ),
    ("hidden_grid_dims", ValueKind::HiddenGridDims),
    ("hidden_heap_v1", ValueKind::HiddenHeapV1),
    ("hidden_dynamic_lds_size", ValueKind::HiddenDynamicLdsSize),
    ("hidden_private_base", ValueKind::HiddenPrivateBase),
    ("hidden_shared_base", ValueKind::HiddenSharedBase),
    ("hidden_queue_ptr", ValueKind::HiddenQueuePtr),
];

impl ValueKind {
    pub fn parse(s: &str) -> ValueKind {
        KINDS
            .iter()
            .find(|(n, _)| *n == s)
            .map(|(_, k)| k.clone())
            .unwrap_or_else(|| ValueKind::Other(s.to_string()))
    }

    /// The metadata spelling.
    pub fn as_str(&self) -> &str {
        match self {
            ValueKind::Other(s) => s,
            k => KINDS
                .iter()
                .find(|(_, v)| v == k)
                .map(|(n, _)| *n)
                .unwrap_or("?"),
        }
    }

    /// Filled by the runtime, not passed by the caller.
    pub fn is_hidden(&self) -> bool {
        self.as_str().starts_with("hidden_")
    }
}

/// One entry of a kernel's `.args`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelArg {
    /// `.name` (only with debug info).
    pub name: Option<String>,
    pub offset: u32,
    pub size: u32,
    pub value_kind: ValueKind,
    /// `.address_space` (`global`, …) for pointers.
    pub address_space: Option<String>,
}

/// One entry of `amdhsa.kernels`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelMetadata {
    /// `.name`: the source-level name.
    pub name: String,
    /// `.symbol`: the descriptor's symbol (`<name>.kd`).
    pub symbol: String,
    pub args: Vec<KernelArg>,
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_align: u32,
    pub wavefront_size: u32,
    pub sgpr_count: u32,
    pub vgpr_count: u32,
    pub agpr_count: Option<u32>,
    pub sgpr_spill_count: Option<u32>,
    pub vgpr_spill_count: Option<u32>,
    pub max_flat_workgroup_size: Option<u32>,
    pub uses_dynamic_stack: Option<bool>,
}

impl KernelMetadata {
    /// The arguments a caller passes (not `hidden_*`), in order.
    pub fn explicit_args(&self) -> impl Iterator<Item = &KernelArg> {
        self.args.iter().filter(|a| !a.value_kind.is_hidden())
    }

    /// One past the last explicit argument's byte: what a caller supplies.
    pub fn explicit_kernarg_size(&self) -> u32 {
        self.explicit_args()
            .map(|a| a.offset.saturating_add(a.size))
            .max()
            .unwrap_or(0)
    }
}

/// The whole note.
#[derive(Clone, Debug, PartialEq)]
pub struct Metadata {
    /// `amdhsa.version` ([1, 2] for code object V5).
    pub version: Vec<u64>,
    /// `amdhsa.target` (`amdgcn-amd-amdhsa--gfx1100`).
    pub target: Option<String>,
    pub kernels: Vec<KernelMetadata>,
}

fn bad(why: impl Into<String>) -> CodeObjectError {
    CodeObjectError::BadMetadata(why.into())
}

fn get<'v>(map: &'v [(Value, Value)], key: &str) -> Option<&'v Value> {
    map.iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn req_u32(map: &[(Value, Value)], key: &str, ctx: &str) -> Result<u32, CodeObjectError> {
    opt_u32(map, key, ctx)?.ok_or_else(|| bad(format!("{ctx}: missing {key}")))
}

fn opt_u32(map: &[(Value, Value)], key: &str, ctx: &str) -> Result<Option<u32>, CodeObjectError> {
    match get(map, key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| {
                bad(format!(
                    "{ctx}: {key} is not a 32-bit unsigned integer ({v})"
                ))
            }),
    }
}

fn opt_str(
    map: &[(Value, Value)],
    key: &str,
    ctx: &str,
) -> Result<Option<String>, CodeObjectError> {
    match get(map, key) {
        None => Ok(None),
        Some(v) => v
            .as_str()
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| bad(format!("{ctx}: {key} is not a string"))),
    }
}

fn req_str(map: &[(Value, Value)], key: &str, ctx: &str) -> Result<String, CodeObjectError> {
    opt_str(map, key, ctx)?.ok_or_else(|| bad(format!("{ctx}: missing {key}")))
}

fn as_map<'v>(v: &'v Value, ctx: &str) -> Result<&'v [(Value, Value)], CodeObjectError> {
    v.as_map()
        .map(|m| m.as_slice())
        .ok_or_else(|| bad(format!("{ctx} is not a map")))
}

fn parse_arg(v: &Value, ctx: &str) -> Result<KernelArg, CodeObjectError> {
    let m = as_map(v, ctx)?;
    let size = req_u32(m, ".size", ctx)?;
    let offset = req_u32(m, ".offset", ctx)?;
    if offset.checked_add(size).is_none() {
        return Err(bad(format!("{ctx}: offset + size overflows")));
    }
    Ok(KernelArg {
        name: opt_str(m, ".name", ctx)?,
        offset,
        size,
        value_kind: ValueKind::parse(&req_str(m, ".value_kind", ctx)?),
        address_space: opt_str(m, ".address_space", ctx)?,
    })
}

fn parse_kernel(v: &Value, index: usize) -> Result<KernelMetadata, CodeObjectError> {
    let ctx0 = format!("amdhsa.kernels[{index}]");
    let m = as_map(v, &ctx0)?;
    let name = req_str(m, ".name", &ctx0)?;
    let ctx = format!("kernel {name}");
    let args = match get(m, ".args") {
        None => Vec::new(),
        Some(a) => a
            .as_array()
            .ok_or_else(|| bad(format!("{ctx}: .args is not an array")))?
            .iter()
            .enumerate()
            .map(|(i, a)| parse_arg(a, &format!("{ctx}: .args[{i}]")))
            .collect::<Result<_, _>>()?,
    };
    let uses_dynamic_stack = match get(m, ".uses_dynamic_stack") {
        None => None,
        Some(v) => Some(
            v.as_bool()
                .ok_or_else(|| bad(format!("{ctx}: .uses_dynamic_stack is not a boolean")))?,
        ),
    };
    Ok(KernelMetadata {
        symbol: req_str(m, ".symbol", &ctx)?,
        args,
        group_segment_fixed_size: req_u32(m, ".group_segment_fixed_size", &ctx)?,
        private_segment_fixed_size: req_u32(m, ".private_segment_fixed_size", &ctx)?,
        kernarg_segment_size: req_u32(m, ".kernarg_segment_size", &ctx)?,
        kernarg_segment_align: req_u32(m, ".kernarg_segment_align", &ctx)?,
        wavefront_size: req_u32(m, ".wavefront_size", &ctx)?,
        sgpr_count: req_u32(m, ".sgpr_count", &ctx)?,
        vgpr_count: req_u32(m, ".vgpr_count", &ctx)?,
        agpr_count: opt_u32(m, ".agpr_count", &ctx)?,
        sgpr_spill_count: opt_u32(m, ".sgpr_spill_count", &ctx)?,
        vgpr_spill_count: opt_u32(m, ".vgpr_spill_count", &ctx)?,
        max_flat_workgroup_size: opt_u32(m, ".max_flat_workgroup_size", &ctx)?,
        uses_dynamic_stack,
        name,
    })
}

impl Metadata {
    /// Decode the desc of an NT_AMDGPU_METADATA note.
    pub fn parse(desc: &[u8]) -> Result<Metadata, CodeObjectError> {
        let mut rd = desc;
        let raw = rmpv::decode::read_value_with_max_depth(&mut rd, MAX_DEPTH)
            .map_err(|e| bad(format!("not MessagePack: {e}")))?;
        let m = as_map(&raw, "the metadata note")?;
        let version = match get(m, "amdhsa.version") {
            None => Vec::new(),
            Some(v) => v
                .as_array()
                .ok_or_else(|| bad("amdhsa.version is not an array"))?
                .iter()
                .map(|x| {
                    x.as_u64()
                        .ok_or_else(|| bad("amdhsa.version holds a non-integer"))
                })
                .collect::<Result<_, _>>()?,
        };
        let target = opt_str(m, "amdhsa.target", "the metadata note")?;
        let kernels = match get(m, "amdhsa.kernels") {
            None => Vec::new(),
            Some(k) => k
                .as_array()
                .ok_or_else(|| bad("amdhsa.kernels is not an array"))?
                .iter()
                .enumerate()
                .map(|(i, k)| parse_kernel(k, i))
                .collect::<Result<_, _>>()?,
        };
        Ok(Metadata {
            version,
            target,
            kernels,
        })
    }
}
