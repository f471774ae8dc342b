//! The code objects build.rs compiled (or took from `kernels/prebuilt/`) and
//! embedded in the binary: one plain AMDGPU ELF per (target, wave size,
//! `-mcumode` or not), each holding every kernel of `kernels/dsxor.hip`.

use crate::case::{Mode, WaveSize};

/// Where an embedded object came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Compiled from `kernels/dsxor.hip` by this build.
    Source,
    /// Copied from `kernels/prebuilt/` (no usable clang at build time).
    Prebuilt,
}

impl Origin {
    pub fn name(self) -> &'static str {
        match self {
            Origin::Source => "source",
            Origin::Prebuilt => "prebuilt",
        }
    }
}

/// One embedded code object.
#[derive(Clone, Copy, Debug)]
pub struct EmbeddedObject {
    /// Processor as in `--offload-arch` (`gfx1100`); the full target id with
    /// features is in the ELF's e_flags (`CodeObject::target`).
    pub target: &'static str,
    pub wave: WaveSize,
    /// Built with `-mcumode` (build.rs `OBJECTS`). Which mode the object
    /// runs in is its descriptors' COMPUTE_PGM_RSRC1.WGP_MODE
    /// ([`EmbeddedObject::mode`]); gfx9 has no WGP, so its objects are CU
    /// mode without the flag.
    pub cumode: bool,
    /// A plain ELF (not an offload bundle).
    pub bytes: &'static [u8],
    pub origin: Origin,
    /// First line of the compiler's `--version` (from the manifest for prebuilt ones).
    pub compiler: &'static str,
    /// File name in `kernels/prebuilt/` (and in OUT_DIR).
    pub file_name: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// Every embedded object, in build.rs's order (gfx1100 wave32 first).
pub fn embedded() -> &'static [EmbeddedObject] {
    EMBEDDED
}

impl EmbeddedObject {
    /// The mode its conformance kernel's descriptor states
    /// (`CodeObject::mode_of`); None if the object does not parse.
    pub fn mode(&self) -> Option<Mode> {
        let co = super::CodeObject::parse(self.bytes).ok()?;
        co.mode_of("dsxor_conformance_off0")
    }
}

/// The embedded object for a processor and wave size, if one was built:
/// the compiler's default mode (no `-mcumode`), which every object was
/// before CU-mode objects shipped. `target` may be a full target id
/// (`gfx90a:sramecc+:xnack-`): its processor part is matched, since the
/// objects are built with features "any" and so run on either setting.
pub fn find_embedded(target: &str, wave: WaveSize) -> Option<&'static EmbeddedObject> {
    let processor = target.split(':').next().unwrap_or(target);
    EMBEDDED
        .iter()
        .find(|o| o.target == processor && o.wave == wave && !o.cumode)
}

/// Every embedded object for a processor and wave size, whatever its mode.
pub fn embedded_for(target: &str, wave: WaveSize) -> impl Iterator<Item = &'static EmbeddedObject> {
    let processor = target.split(':').next().unwrap_or(target).to_string();
    EMBEDDED
        .iter()
        .filter(move |o| o.target == processor && o.wave == wave)
}
