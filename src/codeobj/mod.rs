//! `codeobj`: AMDGPU code objects — the ones dsxor embeds and any a user
//! brings. See ARCHITECTURE.md, module map.
//!
//! - `CodeObject::parse` reads a plain ELF or a clang offload bundle
//!   (`parse_for_target` picks the bundle entry for a target id): target id,
//!   code object version, kernels with their descriptors and metadata,
//!   `.text`.
//! - `kernarg::build_kernarg` lays out a kernarg segment from a kernel's
//!   metadata as the HIP runtime does.
//! - `patch::patch_ds_offset` rewrites OFFSET0/OFFSET1 of a kernel's one
//!   `ds_xor_rtn_b64`; `patch::patch_site_offset` those of whatever DS
//!   instruction sits at the kernel's site label (a deliberate mutant).
//! - `embedded()` lists the objects build.rs embedded.

pub mod bundle;
pub mod describe;
pub mod descriptor;
pub mod ds;
pub mod elf;
pub mod embedded;
pub mod kernarg;
pub mod metadata;
pub mod patch;
pub mod target;

use std::path::{Path, PathBuf};

pub use descriptor::KernelDescriptor;
pub use ds::DsInstruction;
pub use embedded::{embedded, embedded_for, find_embedded, EmbeddedObject, Origin};
pub use kernarg::{build_kernarg, Kernarg, LaunchDims};
pub use metadata::{KernelArg, KernelMetadata, Metadata, ValueKind};
pub use patch::{find_ds_xor_site, patch_ds_offset, patch_site_offset};
pub use target::{generic_family, Feature, TargetId};

use elf::{Bytes, ElfHeader, Section, Symbol};

/// Why a code object could not be read or used.
#[derive(Debug, thiserror::Error)]
pub enum CodeObjectError {
    // The causes are fields named `error`, not `source`, so that printing
    // the error chain does not repeat them.
    #[error("reading {path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path}: {error}")]
    InFile {
        path: PathBuf,
        error: Box<CodeObjectError>,
    },
    #[error(
        "not an ELF file or clang offload bundle (no \\x7fELF or __CLANG_OFFLOAD_BUNDLE__ magic)"
    )]
    NotElf,
    #[error("truncated: {what} needs {len} bytes at offset {offset:#x}, the data has {size}")]
    Truncated {
        what: String,
        offset: u64,
        len: u64,
        size: u64,
    },
    #[error(
        "e_machine is {e_machine} ({e_machine:#x}), not EM_AMDGPU (224): not an AMDGPU code object"
    )]
    WrongMachine { e_machine: u16 },
    #[error("unknown processor: EF_AMDGPU_MACH {mach:#x} (e_flags {e_flags:#x}) is not in LLVM 22's table")]
    UnknownMach { mach: u32, e_flags: u32 },
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("malformed ELF: {0}")]
    Malformed(String),
    #[error("bad note: {0}")]
    BadNote(String),
    #[error("bad NT_AMDGPU_METADATA: {0}")]
    BadMetadata(String),
    #[error("bad offload bundle: {0}")]
    Bundle(String),
    #[error("the bundle holds no AMDGPU code object (entries: {entries})")]
    NoAmdgpuEntry { entries: String },
    /// No entry for the target asked for, or (`target: None`) several
    /// AMDGPU entries and none named.
    #[error("{}", no_bundle_entry(target.as_deref(), available))]
    NoBundleEntry {
        target: Option<String>,
        available: String,
    },
    #[error("bad target id `{target}`: {why}")]
    BadTargetId { target: String, why: String },
    #[error("no kernel `{kernel}` in the code object (kernels: {available})")]
    NoSuchKernel { kernel: String, available: String },
    #[error("kernel `{kernel}`: {why}")]
    Kernel { kernel: String, why: String },
    #[error("kernarg for `{kernel}`: {why}")]
    Kernarg { kernel: String, why: String },
    #[error("cannot patch `{kernel}`: {why}")]
    Patch { kernel: String, why: String },
}

fn no_bundle_entry(target: Option<&str>, available: &str) -> String {
    match target {
        Some(t) => format!("no bundle entry for target {t}; the bundle holds: {available}"),
        None => format!(
            "the bundle holds {available}: name the entry to read by target id \
             (`dsxor inspect --target gfx1100 FILE`)"
        ),
    }
}

/// Most kernels one code object may hold (a bound on the work a hostile
/// file can cause; dsxor's objects hold 6).
pub const MAX_KERNELS: usize = 4096;

/// How the object was wrapped in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Container {
    Elf,
    /// A clang offload bundle; the entry read (its id and byte offset in the input).
    Bundle {
        entry_id: String,
        offset: u64,
    },
    /// The first offload bundle in a host ELF's `.hip_fatbin` section (a
    /// program or object built by clang/hipcc); the entry read.
    HostFatbin {
        e_machine: u16,
        entry_id: String,
    },
}

/// One kernel: its descriptor, where its code is, its metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// Symbol name without `.kd`.
    pub name: String,
    pub descriptor: KernelDescriptor,
    /// Address of the `.kd` symbol.
    pub descriptor_vaddr: u64,
    /// Address of the first instruction (descriptor_vaddr + entry byte offset).
    pub entry_vaddr: u64,
    /// Bytes of code: the FUNC symbol's size, else up to the next kernel's
    /// entry or the end of its section.
    pub code_size: u64,
    /// This kernel's entry in the metadata note (None if the note lacks it).
    pub metadata: Option<KernelMetadata>,
}

/// A `.text`-like executable section.
#[derive(Clone, Copy, Debug)]
pub struct Text<'a> {
    pub name: &'a str,
    pub vaddr: u64,
    pub bytes: &'a [u8],
}

/// A parsed AMDGPU code object.
#[derive(Clone, Debug)]
pub struct CodeObject {
    /// The ELF bytes (the chosen entry, for a bundle).
    elf: Vec<u8>,
    pub container: Container,
    pub header: ElfHeader,
    pub sections: Vec<Section>,
    pub symbols: Vec<Symbol>,
    pub target: TargetId,
    /// 2 … 6 for HSA code objects, None for another OS ABI.
    pub code_object_version: Option<u32>,
    pub metadata: Option<Metadata>,
    pub kernels: Vec<Kernel>,
}

/// A code object's own target id (`gfx1100`, `gfx11-generic`), if it parses.
pub fn target_of(bytes: &[u8]) -> Option<String> {
    CodeObject::parse(bytes).ok().map(|c| c.target.to_string())
}

/// Policy: the largest code object file dsxor reads, 256 MiB. dsxor's own
/// objects are ~20 KB and a user's conformance build is of that order; the
/// largest code objects ROCm ships (rocBLAS/Tensile libraries, one offload
/// bundle per architecture) are tens of MB, so a bundle of many targets
/// still fits. The whole file is held in memory while parsing (the parser
/// works on slices of it), so the limit bounds memory too.
pub const MAX_CODE_OBJECT_BYTES: u64 = 256 << 20;

/// Read a code object file of at most [`MAX_CODE_OBJECT_BYTES`]; a longer
/// one is refused before it is read (an `Io` error of kind `InvalidData`).
pub fn read_file(path: &Path) -> Result<Vec<u8>, CodeObjectError> {
    crate::json::read_bounded_bytes(path, MAX_CODE_OBJECT_BYTES, "code object").map_err(|error| {
        CodeObjectError::Io {
            path: path.to_path_buf(),
            error,
        }
    })
}

impl CodeObject {
    /// Parse a plain ELF, or a bundle holding exactly one AMDGPU entry.
    pub fn parse(data: &[u8]) -> Result<CodeObject, CodeObjectError> {
        Self::parse_inner(data, None)
    }

    /// Parse, choosing the bundle entry for `target` (plain ELF: must run on it).
    pub fn parse_for_target(data: &[u8], target: &TargetId) -> Result<CodeObject, CodeObjectError> {
        let co = Self::parse_inner(data, Some(target))?;
        if !co.target.runs_on(target) {
            return Err(CodeObjectError::NoBundleEntry {
                target: Some(target.to_string()),
                available: co.target.to_string(),
            });
        }
        Ok(co)
    }

    /// Read and parse a file; errors name the path.
    pub fn from_file(path: &Path) -> Result<CodeObject, CodeObjectError> {
        let data = read_file(path)?;
        Self::parse(&data).map_err(|e| CodeObjectError::InFile {
            path: path.to_path_buf(),
            error: Box::new(e),
        })
    }

    fn parse_inner(data: &[u8], target: Option<&TargetId>) -> Result<CodeObject, CodeObjectError> {
        if bundle::is_bundle(data) || data.starts_with(bundle::COMPRESSED_MAGIC) {
            let entries = bundle::parse_entries(data)?;
            let e = bundle::select(&entries, target)?;
            let b = Bytes::new(data);
            let elf = b.slice(e.offset, e.size, "bundle entry")?;
            let mut co = Self::parse_elf(elf)?;
            co.container = Container::Bundle {
                entry_id: e.id.clone(),
                offset: e.offset,
            };
            return Ok(co);
        }
        if !data.starts_with(elf::ELF_MAGIC) {
            return Err(CodeObjectError::NotElf);
        }
        match Self::parse_elf(data) {
            Err(CodeObjectError::WrongMachine { e_machine }) => {
                // A host binary: its device code, if any, is in .hip_fatbin.
                // Several translation units give several bundles, each
                // 4096-aligned; the first is read (policy: inspect one).
                let Some(fatbin) = elf::host_fatbin(data)? else {
                    return Err(CodeObjectError::WrongMachine { e_machine });
                };
                let mut co = Self::parse_inner(fatbin, target)?;
                let entry_id = match co.container {
                    Container::Bundle { entry_id, .. } => entry_id,
                    _ => String::new(),
                };
                co.container = Container::HostFatbin {
                    e_machine,
                    entry_id,
                };
                Ok(co)
            }
            other => other,
        }
    }

    fn parse_elf(data: &[u8]) -> Result<CodeObject, CodeObjectError> {
        let b = Bytes::new(data);
        let header = elf::parse_header(b)?;
        let code_object_version = target::code_object_version(header.osabi, header.abiversion);
        let target = TargetId::from_e_flags(header.e_flags, code_object_version)?;
        let sections = elf::parse_sections(b, &header)?;
        let symbols = elf::parse_symbols(b, &sections)?;
        let notes = elf::parse_notes(b, &sections)?;
        let mut metadata = None;
        for n in &notes {
            if n.name == metadata::NOTE_NAME_AMDGPU && n.n_type == metadata::NT_AMDGPU_METADATA {
                if metadata.is_some() {
                    return Err(CodeObjectError::BadNote(
                        "two NT_AMDGPU_METADATA notes".into(),
                    ));
                }
                metadata = Some(Metadata::parse(n.desc)?);
            }
        }
        let mut co = CodeObject {
            elf: data.to_vec(),
            container: Container::Elf,
            header,
            sections,
            symbols,
            target,
            code_object_version,
            metadata,
            kernels: Vec::new(),
        };
        co.kernels = co.find_kernels()?;
        Ok(co)
    }

    /// Kernels are the `.kd` OBJECT symbols (AMDGPUUsage.rst, "Symbols").
    fn find_kernels(&self) -> Result<Vec<Kernel>, CodeObjectError> {
        // FUNC symbols by address, for each kernel's code size (a hostile
        // file may hold millions of symbols: no quadratic scans).
        let mut funcs: Vec<(u64, u64)> = self
            .symbols
            .iter()
            .filter(|f| f.sym_type == elf::STT_FUNC)
            .map(|f| (f.value, f.size))
            .collect();
        funcs.sort_unstable();
        // Metadata entries by `.symbol` (`<name>.kd`) and by `.name`.
        let md_kernels = self
            .metadata
            .as_ref()
            .map(|m| m.kernels.as_slice())
            .unwrap_or_default();
        let mut by_symbol = std::collections::HashMap::new();
        let mut by_name = std::collections::HashMap::new();
        for k in md_kernels {
            by_symbol.entry(k.symbol.as_str()).or_insert(k);
            by_name.entry(k.name.as_str()).or_insert(k);
        }
        let mut seen = std::collections::HashSet::new();
        let mut kernels = Vec::new();
        for s in &self.symbols {
            let Some(name) = s.name.strip_suffix(".kd") else {
                continue;
            };
            if s.sym_type != elf::STT_OBJECT || !seen.insert(name) {
                continue;
            }
            if kernels.len() == MAX_KERNELS {
                return Err(CodeObjectError::Malformed(format!(
                    "more than {MAX_KERNELS} kernels (policy: real code objects hold tens)"
                )));
            }
            let kerr = |why: String| CodeObjectError::Kernel {
                kernel: name.to_string(),
                why,
            };
            if s.size != descriptor::KERNEL_DESCRIPTOR_SIZE {
                return Err(kerr(format!(
                    "{}.kd is {} bytes, a kernel descriptor is 64",
                    name, s.size
                )));
            }
            let raw = self
                .read_vaddr(s.value, descriptor::KERNEL_DESCRIPTOR_SIZE)
                .map_err(|e| kerr(format!("descriptor: {e}")))?;
            let descriptor = KernelDescriptor::parse(raw)?;
            let entry_vaddr = s
                .value
                .checked_add_signed(descriptor.kernel_code_entry_byte_offset)
                .ok_or_else(|| kerr("kernel_code_entry_byte_offset overflows".into()))?;
            let text = self
                .section_at(entry_vaddr)
                .filter(|sec| sec.sh_flags & elf::SHF_EXECINSTR != 0)
                .ok_or_else(|| {
                    kerr(format!(
                        "entry {entry_vaddr:#x} is not in an executable section"
                    ))
                })?;
            let section_end = text.sh_addr.saturating_add(text.sh_size);
            let at = funcs.partition_point(|&(v, _)| v < entry_vaddr);
            let func_size = funcs
                .get(at..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&(v, _)| v == entry_vaddr)
                .map(|&(_, size)| size)
                .find(|&size| size > 0);
            let next_entry = funcs
                .get(at..)
                .unwrap_or_default()
                .iter()
                .map(|&(v, _)| v)
                .find(|&v| v > entry_vaddr)
                .unwrap_or(section_end)
                .min(section_end);
            let code_size = func_size.unwrap_or(next_entry - entry_vaddr);
            if entry_vaddr.saturating_add(code_size) > section_end {
                return Err(kerr(format!(
                    "code [{entry_vaddr:#x}, +{code_size:#x}) runs past its section {}",
                    text.name
                )));
            }
            let metadata = by_symbol
                .get(s.name.as_str())
                .or_else(|| by_name.get(name))
                .map(|k| (*k).clone());
            kernels.push(Kernel {
                name: name.to_string(),
                descriptor,
                descriptor_vaddr: s.value,
                entry_vaddr,
                code_size,
                metadata,
            });
        }
        kernels.sort_by_key(|k| k.entry_vaddr);
        Ok(kernels)
    }

    /// The ELF bytes (for a bundle, the chosen entry alone).
    pub fn elf_bytes(&self) -> &[u8] {
        &self.elf
    }

    /// The full target triple and id (`amdgcn-amd-amdhsa--gfx1100`).
    pub fn triple_target_id(&self) -> String {
        format!("amdgcn-amd-amdhsa--{}", self.target)
    }

    /// Wave size a kernel runs in: the metadata's `.wavefront_size`, else the
    /// descriptor's ENABLE_WAVEFRONT_SIZE32 bit (gfx10+), else 64.
    pub fn wave_size(&self, kernel: &Kernel) -> u32 {
        kernel
            .metadata
            .as_ref()
            .map(|m| m.wavefront_size)
            .unwrap_or(if kernel.descriptor.enable_wavefront_size32() {
                32
            } else {
                64
            })
    }

    /// The wavefront execution mode a kernel's descriptor asks for:
    /// COMPUTE_PGM_RSRC1.WGP_MODE set is WGP mode, clear is CU mode (on gfx9,
    /// where the bit is reserved 0, a workgroup's waves share one CU, which
    /// is CU mode). None when the object has no such kernel.
    pub fn mode_of(&self, kernel: &str) -> Option<crate::case::Mode> {
        let k = self.kernel(kernel).ok()?;
        Some(if k.descriptor.wgp_mode() {
            crate::case::Mode::Wgp
        } else {
            crate::case::Mode::Cu
        })
    }

    pub fn kernel(&self, name: &str) -> Result<&Kernel, CodeObjectError> {
        self.kernels
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| CodeObjectError::NoSuchKernel {
                kernel: name.to_string(),
                available: self
                    .kernels
                    .iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// The allocated, file-backed section holding `vaddr`.
    pub fn section_at(&self, vaddr: u64) -> Option<&Section> {
        self.sections.iter().find(|s| {
            s.sh_type != elf::SHT_NOBITS
                && s.sh_addr != 0
                && vaddr >= s.sh_addr
                && vaddr - s.sh_addr < s.sh_size
        })
    }

    /// File offset of `vaddr`, with `len` bytes inside the same section.
    pub fn file_offset(&self, vaddr: u64, len: u64) -> Result<u64, CodeObjectError> {
        let s = self.section_at(vaddr).ok_or_else(|| {
            CodeObjectError::Malformed(format!("address {vaddr:#x} is in no section"))
        })?;
        let within = vaddr - s.sh_addr;
        if within.saturating_add(len) > s.sh_size {
            return Err(CodeObjectError::Malformed(format!(
                "[{vaddr:#x}, +{len:#x}) runs past section {}",
                s.name
            )));
        }
        Ok(s.sh_offset + within)
    }

    /// `len` bytes at a virtual address.
    pub fn read_vaddr(&self, vaddr: u64, len: u64) -> Result<&[u8], CodeObjectError> {
        let off = self.file_offset(vaddr, len)?;
        Bytes::new(&self.elf).slice(off, len, "bytes at an address")
    }

    /// The `.text` section (for the emulator: load `bytes` at `vaddr`).
    pub fn text(&self) -> Result<Text<'_>, CodeObjectError> {
        let s = self
            .sections
            .iter()
            .find(|s| s.name == ".text" && s.sh_type != elf::SHT_NOBITS)
            .ok_or_else(|| CodeObjectError::Malformed("no .text section".into()))?;
        Ok(Text {
            name: &s.name,
            vaddr: s.sh_addr,
            bytes: Bytes::new(&self.elf).slice(s.sh_offset, s.sh_size, ".text")?,
        })
    }

    /// A kernel's code bytes, from its entry.
    pub fn kernel_code(&self, kernel: &Kernel) -> Result<&[u8], CodeObjectError> {
        self.read_vaddr(kernel.entry_vaddr, kernel.code_size)
    }

    /// The `isa` encoding family of this object's processor.
    pub fn isa_family(&self) -> Result<crate::isa::Family, CodeObjectError> {
        ds::family_for(&self.target)
    }

    /// DS instructions in a kernel's code (see `ds` for how they are found).
    pub fn ds_instructions(&self, kernel: &Kernel) -> Result<Vec<DsInstruction>, CodeObjectError> {
        let family = self.isa_family()?;
        Ok(ds::scan(
            self.kernel_code(kernel)?,
            kernel.entry_vaddr,
            family,
        ))
    }

    /// A local (or any) symbol's address, by exact name.
    pub fn symbol_vaddr(&self, name: &str) -> Option<u64> {
        self.symbols
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.value)
    }
}
