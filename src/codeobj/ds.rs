//! Finding DS instructions in a kernel's code, decoded and printed by
//! `crate::isa` (encodings from llvm/lib/Target/AMDGPU/DSInstructions.td,
//! text checked against llvm-mc; see `isa`).
//!
//! `isa` decodes DS words but does not size the other encodings, so the
//! code is scanned dword by dword: a dword whose bits 31:26 are `110110`
//! (`isa::is_ds`) and whose 64-bit word decodes starts a DS instruction;
//! anything else advances 4 bytes. A literal or a second instruction dword
//! could in principle look like a DS word, so every caller that acts on a
//! match (the offset patcher) demands exactly one match and checks it
//! against the `<kernel>.ds_xor_site` label the kernel source plants; the
//! tests check the scan finds exactly what llvm-objdump disassembles.

use crate::isa::{self, DsInst, Family, IsaError};

use super::target::TargetId;
use super::CodeObjectError;

/// One DS instruction found in code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DsInstruction {
    pub vaddr: u64,
    /// Both dwords, low dword first in memory.
    pub word: u64,
    pub inst: DsInst,
    /// LLVM's text (`ds_xor_rtn_b64 v[3:4], v5, v[7:8] offset:8`), or why
    /// `isa` gives none (an opcode LLVM 22 does not have, …).
    pub text: Result<String, IsaError>,
}

impl DsInstruction {
    /// The mnemonic, when `isa` knows the opcode.
    pub fn mnemonic(&self, family: Family) -> Option<&'static str> {
        isa::op_name(family, self.inst.op)
    }
}

/// The `isa` encoding family of a target (by processor name).
pub fn family_for(target: &TargetId) -> Result<Family, CodeObjectError> {
    isa::target(&target.processor)
        .map(|t| t.family)
        .map_err(|e| {
            CodeObjectError::Unsupported(format!("DS decoding for {}: {e}", target.processor))
        })
}

/// DS instructions in `code`, which starts at address `base`.
pub fn scan(code: &[u8], base: u64, family: Family) -> Vec<DsInstruction> {
    let mut out = Vec::new();
    let mut i = 0usize;
    while let Some(bytes) = code.get(i..i + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(bytes);
        let word = u64::from_le_bytes(w);
        // decode checks isa::is_ds (bits 31:26) first.
        match DsInst::decode(family, word) {
            Ok(inst) => {
                out.push(DsInstruction {
                    vaddr: base + i as u64,
                    word,
                    inst,
                    text: isa::print(family, &inst),
                });
                i += 8;
            }
            Err(_) => i += 4,
        }
    }
    out
}

/// `word` with `{offset1, offset0}` replaced.
pub fn with_offset(family: Family, word: u64, offset: u16) -> Result<u64, IsaError> {
    let mut inst = DsInst::decode(family, word)?;
    inst.set_offset(offset);
    inst.encode(family)
}
