//! Rewriting the 16-bit offset of a kernel's `ds_xor_rtn_b64`, so any offset
//! can be tested from the `_off0` conformance kernel without a compiler
//! (kernels/dsxor.hip, "Conformance kernels").
//!
//! The instruction is found by decoding the kernel's code (`CodeObject::
//! ds_instructions`); the patch is refused unless exactly one
//! `ds_xor_rtn_b64` is there, and — when the object carries the
//! `<kernel>.ds_xor_site` label dsxor's kernels plant — unless that one
//! sits exactly at the label.

use crate::isa::DS_XOR_RTN_B64;

use super::ds;
use super::{CodeObject, CodeObjectError, Container};

/// The label kernels/dsxor.hip puts on a conformance kernel's instruction.
pub fn site_symbol(kernel: &str) -> String {
    format!("{kernel}.ds_xor_site")
}

/// The vaddr of `kernel`'s one `ds_xor_rtn_b64` (checked as described above).
pub fn find_ds_xor_site(co: &CodeObject, kernel: &str) -> Result<u64, CodeObjectError> {
    let perr = |why: String| CodeObjectError::Patch {
        kernel: kernel.to_string(),
        why,
    };
    let k = co.kernel(kernel)?;
    // At the label, first: a code object whose instruction was replaced (a
    // ds_or_rtn_b64 where the ds_xor_rtn_b64 should be) is named for what
    // is there, not only for what is missing.
    if let Some(site) = co.symbol_vaddr(&site_symbol(kernel)) {
        let (op, found) = what_is_at(co, site);
        if op != Some(DS_XOR_RTN_B64) {
            return Err(perr(format!(
                "its label {} ({site:#x}) holds {found}, not ds_xor_rtn_b64",
                site_symbol(kernel)
            )));
        }
    }
    let hits: Vec<_> = co
        .ds_instructions(k)?
        .into_iter()
        .filter(|d| d.inst.op == DS_XOR_RTN_B64)
        .collect();
    let [hit] = hits.as_slice() else {
        return Err(perr(format!(
            "expected exactly one ds_xor_rtn_b64 in its code, found {} (at {:x?})",
            hits.len(),
            hits.iter().map(|h| h.vaddr).collect::<Vec<_>>()
        )));
    };
    if let Some(site) = co.symbol_vaddr(&site_symbol(kernel)) {
        if site != hit.vaddr {
            return Err(perr(format!(
                "the ds_xor_rtn_b64 found at {:#x} is not at the label {} ({site:#x})",
                hit.vaddr,
                site_symbol(kernel)
            )));
        }
    }
    Ok(hit.vaddr)
}

/// The DS opcode at `vaddr`, if one decodes there, and the instruction as
/// text (`ds_or_rtn_b64 v[3:4], …`) or what else is there.
fn what_is_at(co: &CodeObject, vaddr: u64) -> (Option<u8>, String) {
    let Ok(bytes) = co.read_vaddr(vaddr, 8) else {
        return (None, "no code (outside the object's sections)".into());
    };
    let mut w = [0u8; 8];
    w.copy_from_slice(bytes);
    let word = u64::from_le_bytes(w);
    let Ok(family) = co.isa_family() else {
        return (
            None,
            format!("the words {word:#018x} (no DS decoder for the target)"),
        );
    };
    match crate::isa::DsInst::decode(family, word) {
        Ok(inst) => (
            Some(inst.op),
            match crate::isa::print(family, &inst) {
                Ok(text) => format!("`{text}`"),
                Err(e) => format!("a DS instruction with opcode {} ({e})", inst.op),
            },
        ),
        Err(_) => (
            None,
            format!("no DS instruction (dword {:#010x})", word as u32),
        ),
    }
}

/// A copy of the code object `bytes` (plain ELF) whose `kernel` issues its
/// `ds_xor_rtn_b64` with `{offset1, offset0} = new_offset`. Nothing else
/// changes (the kernel descriptor and metadata do not depend on the offset).
pub fn patch_ds_offset(
    bytes: &[u8],
    kernel: &str,
    new_offset: u16,
) -> Result<Vec<u8>, CodeObjectError> {
    let co = elf_to_patch(bytes, kernel)?;
    let vaddr = find_ds_xor_site(&co, kernel)?;
    patch_at(&co, bytes, kernel, vaddr, new_offset)
}

/// A copy of the code object `bytes` (plain ELF) whose `kernel` issues the
/// DS instruction at its `<kernel>.ds_xor_site` label, whatever it is, with
/// `{offset1, offset0} = new_offset`: for a deliberate mutant
/// (`--allow-mutant`, a `ds_or_rtn_b64` where the `ds_xor_rtn_b64` should
/// be), so that it is judged at every offset of the suite. The label is
/// required (without it there is no telling which instruction is the site).
pub fn patch_site_offset(
    bytes: &[u8],
    kernel: &str,
    new_offset: u16,
) -> Result<Vec<u8>, CodeObjectError> {
    let co = elf_to_patch(bytes, kernel)?;
    let label = site_symbol(kernel);
    let site = co
        .symbol_vaddr(&label)
        .ok_or_else(|| CodeObjectError::Patch {
            kernel: kernel.to_string(),
            why: format!("it has no {label} label to find its site by"),
        })?;
    if let (None, found) = what_is_at(&co, site) {
        return Err(CodeObjectError::Patch {
            kernel: kernel.to_string(),
            why: format!("its label {label} ({site:#x}) holds {found}"),
        });
    }
    patch_at(&co, bytes, kernel, site, new_offset)
}

/// `bytes` parsed, refused unless a plain ELF.
fn elf_to_patch(bytes: &[u8], kernel: &str) -> Result<CodeObject, CodeObjectError> {
    let co = CodeObject::parse(bytes)?;
    if co.container != Container::Elf {
        return Err(CodeObjectError::Patch {
            kernel: kernel.to_string(),
            why: "the input is an offload bundle; patch its ELF entry (CodeObject::elf_bytes)"
                .into(),
        });
    }
    Ok(co)
}

/// A copy of `bytes` with the DS instruction at `vaddr` re-encoded with
/// `new_offset`.
fn patch_at(
    co: &CodeObject,
    bytes: &[u8],
    kernel: &str,
    vaddr: u64,
    new_offset: u16,
) -> Result<Vec<u8>, CodeObjectError> {
    let off = co.file_offset(vaddr, 8)? as usize;
    let mut out = bytes.to_vec();
    let slot = out
        .get_mut(off..off + 8)
        .ok_or_else(|| CodeObjectError::Patch {
            kernel: kernel.to_string(),
            why: format!("instruction at file offset {off:#x} is outside the input"),
        })?;
    let mut w = [0u8; 8];
    w.copy_from_slice(slot);
    let word =
        ds::with_offset(co.isa_family()?, u64::from_le_bytes(w), new_offset).map_err(|e| {
            CodeObjectError::Patch {
                kernel: kernel.to_string(),
                why: format!("re-encoding the instruction: {e}"),
            }
        })?;
    slot.copy_from_slice(&word.to_le_bytes());
    Ok(out)
}
