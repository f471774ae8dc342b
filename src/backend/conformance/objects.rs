//! The code objects that hold the conformance kernels: the embedded ones
//! for a target, a user's file (checked to be a conformance code object),
//! and the code-object hooks a device lists kernels and patches offsets
//! with.

use sha2::{Digest, Sha256};

use super::abi::{kernel_name, KERNEL_PREFIX};
use crate::case::{Mode, WaveSize};

/// A code object holding the conformance kernels for one wave size.
#[derive(Clone, Debug)]
pub struct KernelObject {
    pub wave: WaveSize,
    /// The mode its conformance kernel's descriptor states
    /// (`CodeObject::mode_of`: COMPUTE_PGM_RSRC1.WGP_MODE).
    pub mode: Mode,
    pub bytes: Vec<u8>,
    /// `embedded:<file>` or the path it was read from.
    pub source: String,
    /// `source`, `prebuilt` or `file`.
    pub origin: String,
    pub compiler: Option<String>,
}

impl KernelObject {
    pub fn sha256(&self) -> String {
        hex::encode(Sha256::digest(&self.bytes))
    }
}

/// Makes a code object whose `_off0` kernel carries another offset
/// (`codeobj::patch_ds_offset` in the real pipeline).
pub type PatchOffset = fn(&[u8], &str, u16) -> Result<Vec<u8>, String>;

/// Lists the kernel symbols of a code object.
pub type ListKernels = fn(&[u8]) -> Result<Vec<String>, String>;

/// `ListKernels` over a real code object (`codeobj`).
pub fn codeobj_kernels(bytes: &[u8]) -> Result<Vec<String>, String> {
    crate::codeobj::CodeObject::parse(bytes)
        .map(|co| co.kernels.into_iter().map(|k| k.name).collect())
        .map_err(|e| e.to_string())
}

/// `PatchOffset` over a real code object (`codeobj::patch_ds_offset`).
///
/// A kernel whose site label holds another DS instruction is patched at
/// that instruction (`codeobj::patch_site_offset`): such an object reaches
/// a run only as a deliberate mutant, since `file_object` refuses it
/// without `--allow-mutant`, and a mutant must be judged at every offset of
/// the suite, not stop the run at the first case that needs a patch.
pub fn codeobj_patch(bytes: &[u8], kernel: &str, offset: u16) -> Result<Vec<u8>, String> {
    use crate::codeobj::{patch_ds_offset, patch_site_offset, CodeObject};
    match patch_ds_offset(bytes, kernel, offset) {
        Ok(b) => Ok(b),
        Err(e) => {
            let holds_another = CodeObject::parse(bytes)
                .ok()
                .and_then(|co| co.symbol_vaddr(&crate::codeobj::patch::site_symbol(kernel)))
                .is_some();
            if holds_another {
                patch_site_offset(bytes, kernel, offset).map_err(|e| e.to_string())
            } else {
                Err(e.to_string())
            }
        }
    }
}

/// The embedded conformance objects for a processor (`gfx1100`), one per
/// (wave size, mode) built for it, each object's mode read from its
/// descriptor (the build flag if it does not parse, which build.rs's own
/// tests rule out).
pub fn embedded_objects(target: &str) -> Vec<KernelObject> {
    [WaveSize::Wave32, WaveSize::Wave64]
        .into_iter()
        .flat_map(|w| crate::codeobj::embedded_for(target, w))
        .map(|o| KernelObject {
            wave: o.wave,
            mode: o
                .mode()
                .unwrap_or(if o.cumode { Mode::Cu } else { Mode::Wgp }),
            bytes: o.bytes.to_vec(),
            source: format!("embedded:{}", o.file_name),
            origin: o.origin.name().to_string(),
            compiler: Some(o.compiler.to_string()),
        })
        .collect()
}

/// A user's code object (`--code-object FILE`: plain ELF or offload
/// bundle, the entry for `target` taken): its wave size is that of its
/// `dsxor_conformance_off0` kernel. Unless `allow_mutant`, every
/// conformance kernel must issue `ds_xor_rtn_b64` at its site label.
pub fn file_object(
    path: &std::path::Path,
    target: &str,
    allow_mutant: bool,
) -> Result<KernelObject, String> {
    let data = crate::codeobj::read_file(path).map_err(|e| e.to_string())?;
    let target_id =
        crate::codeobj::TargetId::parse(target).map_err(|e| format!("target `{target}`: {e}"))?;
    let co = crate::codeobj::CodeObject::parse_for_target(&data, &target_id)
        .or_else(|_| crate::codeobj::CodeObject::parse(&data))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let base = kernel_name(0);
    let k = co
        .kernel(&base)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let wave = WaveSize::from_lanes(co.wave_size(k)).ok_or_else(|| {
        format!(
            "{}: `{base}` has wave size {}",
            path.display(),
            co.wave_size(k)
        )
    })?;
    // Refused before any case runs: a conformance kernel that does not
    // issue ds_xor_rtn_b64 at its site would fail every case (and then stop
    // the run at the first offset patch) for a reason that is not the
    // device's. A deliberate mutant (`--allow-mutant`) runs: the checks
    // are what it tests.
    for k in co
        .kernels
        .iter()
        .filter(|k| !allow_mutant && k.name.starts_with(KERNEL_PREFIX))
    {
        crate::codeobj::find_ds_xor_site(&co, &k.name)
            .map_err(|e| format!("{}: not a conformance code object: {e}", path.display()))?;
    }
    Ok(KernelObject {
        wave,
        mode: co.mode_of(&base).unwrap_or_default(),
        bytes: co.elf_bytes().to_vec(),
        source: path.display().to_string(),
        origin: "file".into(),
        compiler: None,
    })
}
