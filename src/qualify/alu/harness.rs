//! The harness kernel `dsxor_alu_harness` and the ALU corpus's side of the
//! qualify driver: a program written into the harness's slot, the launch
//! on a register block, the block read back, and [`AluCorpus`], the corpus
//! the driver runs.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::gen::{input, program_for, replicate_wmma_inputs};
use super::pseudo::run_pseudocode;
use super::{
    corpus_names, wave32_only, wave64_only, wave_mask, AluState, BLOCK, HARNESS, SCALAR_DWORDS,
    SLOT, SLOT_END, S_NOP_0,
};
use crate::backend::{ArgValue, Backend, Completion, Dispatch, ReadBack};
use crate::case::WaveSize;
use crate::codeobj::CodeObject;
use crate::isa::alu::ProgramInst;
use crate::qualify::driver::{qualify_into, Answers, Corpus, Options, Tally, Target};
use crate::qualify::{ExecPattern, QualifyError, QualifyRecord, Unfinished};

/// The slot of the harness in `co`: its vaddr and length in dwords, after
/// checking it holds only `s_nop 0` (so a program is never written over
/// anything else).
pub fn find_slot(co: &CodeObject) -> Result<(u64, usize), QualifyError> {
    let bad = |why: String| QualifyError::Corpus(format!("{HARNESS}'s program slot: {why}"));
    co.kernel(HARNESS).map_err(|e| bad(e.to_string()))?;
    let start = co
        .symbol_vaddr(SLOT)
        .ok_or_else(|| bad(format!("no label {SLOT}")))?;
    let end = co
        .symbol_vaddr(SLOT_END)
        .ok_or_else(|| bad(format!("no label {SLOT_END}")))?;
    if end <= start || (end - start) % 4 != 0 {
        return Err(bad(format!("labels at {start:#x}..{end:#x}")));
    }
    let len = ((end - start) / 4) as usize;
    let bytes = co
        .read_vaddr(start, len as u64 * 4)
        .map_err(|e| bad(e.to_string()))?;
    if let Some(k) = bytes
        .chunks_exact(4)
        .position(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) != S_NOP_0)
    {
        return Err(bad(format!("dword {k} is not s_nop 0")));
    }
    Ok((start, len))
}

/// `code` (an ELF code object with the harness) with `insts` written at
/// the start of the harness's slot; the rest of the slot stays s_nop.
pub fn program(code: &[u8], insts: &[ProgramInst], wave64: bool) -> Result<Vec<u8>, QualifyError> {
    let bad = |why: String| QualifyError::Corpus(format!("ALU program: {why}"));
    let co = CodeObject::parse(code).map_err(|e| bad(e.to_string()))?;
    let (vaddr, len) = find_slot(&co)?;
    let mut words = Vec::new();
    for i in insts {
        words.extend(i.encode(wave64).map_err(|e| bad(e.to_string()))?);
    }
    if words.len() > len {
        return Err(bad(format!(
            "{} dwords do not fit the {len}-dword slot",
            words.len()
        )));
    }
    let off = co
        .file_offset(vaddr, len as u64 * 4)
        .map_err(|e| bad(e.to_string()))? as usize;
    let mut out = code.to_vec();
    for (k, w) in words.iter().enumerate() {
        out[off + 4 * k..off + 4 * k + 4].copy_from_slice(&w.to_le_bytes());
    }
    Ok(out)
}

/// The launch of the harness on `input`.
pub fn dispatch<'a>(code: &'a [u8], input: &AluState, timeout: Duration) -> Dispatch<'a> {
    let lanes = input.v.len();
    let vin: Vec<u8> = input
        .v
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let mut sin: Vec<u32> = input.s.to_vec();
    sin.extend([
        input.vcc as u32,
        (input.vcc >> 32) as u32,
        input.exec as u32,
        (input.exec >> 32) as u32,
        input.scc as u32,
    ]);
    let sin: Vec<u8> = sin.iter().flat_map(|x| x.to_le_bytes()).collect();
    Dispatch {
        code_object: code,
        kernel: HARNESS,
        groups: 1,
        block: lanes as u32,
        dynamic_lds: 0,
        buffers: vec![
            vin,
            sin,
            vec![0xa5; lanes * BLOCK * 4],
            vec![0xa5; SCALAR_DWORDS * 4],
        ],
        args: vec![
            ArgValue::Buffer(0),
            ArgValue::Buffer(1),
            ArgValue::Buffer(2),
            ArgValue::Buffer(3),
        ],
        timeout,
        read_back: ReadBack::All,
    }
}

/// The state the harness stored (`buffers` of a completed [`dispatch`]).
/// Wave32: EXEC's high half is dropped (not a mask there).
pub fn read_back(buffers: &[Vec<u8>], lanes: usize) -> Result<AluState, String> {
    let dwords = |b: &Vec<u8>| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let (Some(v), Some(s)) = (buffers.get(2), buffers.get(3)) else {
        return Err("the launch returned fewer than 4 buffers".into());
    };
    let (v, s) = (dwords(v), dwords(s));
    if v.len() != lanes * BLOCK || s.len() != SCALAR_DWORDS {
        return Err(format!(
            "buffers of {} and {} dwords, expected {} and {SCALAR_DWORDS}",
            v.len(),
            s.len(),
            lanes * BLOCK
        ));
    }
    let exec = s[10] as u64 | (s[11] as u64) << 32;
    Ok(AluState {
        v: v.chunks_exact(BLOCK)
            .map(|c| std::array::from_fn(|k| c[k]))
            .collect(),
        s: std::array::from_fn(|k| s[k]),
        vcc: s[8] as u64 | (s[9] as u64) << 32,
        exec: exec & wave_mask(lanes as u32),
        scc: s[12] != 0,
    })
}

/// What the record says of one ALU program name.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AluResult {
    /// The instruction (its table mnemonic) or chain name.
    pub instruction: String,
    pub waves: Vec<WaveSize>,
    pub programs: u64,
    /// Programs where the device, the software device and the pseudocode
    /// left the same register block.
    pub agreed: u64,
    pub qualified: bool,
}

/// One ALU disagreement: the program, its input and the three outputs.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AluDisagreement {
    pub instruction: String,
    pub wave: WaveSize,
    pub exec: ExecPattern,
    /// The program: LLVM text and its words, one instruction a line.
    pub program: String,
    pub summary: String,
    pub input: AluState,
    /// The device's block; empty (no lanes, every scalar 0) when it did not
    /// complete the program (`device_unfinished`).
    pub device: AluState,
    /// The software device's block; empty when `emu_unfinished`.
    pub emu: AluState,
    pub pseudocode: AluState,
    /// The device faulted or timed out on the program: a finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_unfinished: Option<Unfinished>,
    /// The software device faulted or timed out on the program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emu_unfinished: Option<Unfinished>,
}

/// The ALU corpus: [`corpus_names`], each program one instruction or chain
/// in the harness's slot, its output the register block.
pub struct AluCorpus;

/// One ALU program: its instructions, the harness with them in its slot,
/// its input block and EXEC shape.
pub struct AluProgram {
    insts: Vec<ProgramInst>,
    code: Vec<u8>,
    input: AluState,
    exec: ExecPattern,
}

impl Corpus for AluCorpus {
    type Row = AluResult;
    type Disagreement = AluDisagreement;
    type Output = AluState;
    type Wave = ();
    type Program = AluProgram;

    fn row(&self, name: &str, objects: &[(WaveSize, &[u8])]) -> Result<AluResult, QualifyError> {
        if !corpus_names().contains(&name) {
            return Err(QualifyError::Corpus(format!(
                "{name} is not in the ALU corpus"
            )));
        }
        Ok(AluResult {
            instruction: name.to_string(),
            waves: objects
                .iter()
                .map(|(w, _)| *w)
                .filter(|w| *w == WaveSize::Wave32 || !wave32_only(name))
                .filter(|w| *w == WaveSize::Wave64 || !wave64_only(name))
                .collect(),
            programs: 0,
            agreed: 0,
            qualified: false,
        })
    }

    fn waves(row: &AluResult) -> &[WaveSize] {
        &row.waves
    }

    fn tally(row: &mut AluResult) -> Tally<'_> {
        Tally {
            programs: &mut row.programs,
            agreed: &mut row.agreed,
            qualified: &mut row.qualified,
        }
    }

    fn found(record: &mut QualifyRecord) -> (&mut Vec<AluResult>, &mut Vec<AluDisagreement>) {
        (&mut record.alu_instructions, &mut record.alu_disagreements)
    }

    fn wave(&self, _: &Target<'_>) -> Result<(), QualifyError> {
        Ok(())
    }

    fn program(
        &self,
        at: &Target<'_>,
        _: &mut (),
        seed: u64,
        index: u64,
    ) -> Result<AluProgram, QualifyError> {
        let wave64 = at.wave == WaveSize::Wave64;
        let insts = program_for(at.name, wave64, seed, index)?;
        let code = program(at.code, &insts, wave64)?;
        let (mut input, exec) = input(seed, at.wave, index);
        replicate_wmma_inputs(&insts, &mut input);
        Ok(AluProgram {
            insts,
            code,
            input,
            exec,
        })
    }

    fn dispatch<'p>(&self, _: &'p (), p: &'p AluProgram, timeout: Duration) -> Dispatch<'p> {
        dispatch(&p.code, &p.input, timeout)
    }

    fn read(
        &self,
        p: &AluProgram,
        done: &Completion,
        side: &'static str,
    ) -> Result<AluState, QualifyError> {
        read_back(&done.buffers, p.input.v.len())
            .map_err(|e| QualifyError::Corpus(format!("{side}: {e}")))
    }

    fn expected(&self, at: &Target<'_>, _: &(), p: &AluProgram) -> Result<AluState, QualifyError> {
        let mut want = p.input.clone();
        run_pseudocode(&p.insts, &mut want, at.wave == WaveSize::Wave64)
            .map_err(|e| QualifyError::Corpus(format!("pseudocode of {}: {e}", at.name)))?;
        want.exec &= wave_mask(p.input.v.len() as u32);
        Ok(want)
    }

    fn disagreement(
        &self,
        at: &Target<'_>,
        p: AluProgram,
        a: Answers<AluState>,
    ) -> AluDisagreement {
        AluDisagreement {
            instruction: at.name.to_string(),
            wave: at.wave,
            exec: p.exec,
            program: crate::isa::alu::listing(&p.insts, at.wave == WaveSize::Wave64),
            summary: a.summary,
            input: p.input,
            device: a.device,
            emu: a.emu,
            pseudocode: a.pseudocode,
            device_unfinished: a.device_unfinished,
            emu_unfinished: a.emu_unfinished,
        }
    }
}

/// Run `names` of the ALU corpus on both devices and the pseudocode: the
/// rows and disagreements ([`qualify_into`] with [`AluCorpus`] into a
/// record of their own). A program that faults or times out on either side
/// is a disagreement ([`Unfinished`]).
pub fn qualify_alu(
    device: &mut dyn Backend,
    emu: &mut dyn Backend,
    names: &[&str],
    opts: &Options<'_>,
    progress: &mut dyn FnMut(&AluResult),
) -> Result<(Vec<AluResult>, Vec<AluDisagreement>), QualifyError> {
    let mut record = QualifyRecord::new(device.info(), emu.info(), opts.seed);
    qualify_into(&AluCorpus, &mut record, device, emu, names, opts, progress)?;
    Ok((record.alu_instructions, record.alu_disagreements))
}
