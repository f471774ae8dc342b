//! Assemble a gfx1100 program with llvm-mc and run it on one wave of the
//! software device: the harness of the per-instruction tests (`emu_*_llvm`).
//! llvm-mc is the oracle for the encoding; the expected values are each
//! test's own, worked from the RDNA3 ISA guide's pseudocode.

use crate::common;

use dsxor::emu::decode::decode_text;
use dsxor::emu::ds::Lds;
use dsxor::emu::mem::GlobalMem;
use dsxor::emu::wave::{Env, Status, Wave};
use dsxor::emu::{Fault, WaveError};

/// Where the program's bytes sit (any address: the programs branch
/// relative to the pc).
const PC: u64 = 0x1000;

/// How the wave is set up before the program runs.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    pub wave64: bool,
    /// Injected into the wave's environment.
    pub fault: Option<Fault>,
    /// The LDS's size in bytes.
    pub lds_bytes: u32,
    /// EXEC before the program; `None`: every lane.
    pub exec: Option<u64>,
    /// The MODE register (`hwreg.mode`); `None`: the wave's reset value.
    pub mode: Option<u32>,
    /// Instructions per `Wave::run` quantum; a program still running after
    /// it returns `Ok(Status::Running)`.
    pub quantum: u64,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup {
            wave64: false,
            fault: None,
            lds_bytes: 0,
            exec: None,
            mode: None,
            quantum: 10_000,
        }
    }
}

/// A finished (or stopped) wave, its LDS and how `Wave::run` returned.
pub struct Run {
    pub wave: Wave,
    pub lds: Lds,
    pub result: Result<Status, WaveError>,
}

/// Assemble `src` (it must end in `s_endpgm` to end) and run it once per
/// `setup`: `lds_init` fills the LDS, `init` the registers (after EXEC and
/// MODE are set, so it may change them). `None` (skipped) without llvm-mc.
pub fn run(
    src: &str,
    setup: Setup,
    lds_init: impl FnOnce(&mut Lds),
    init: impl FnOnce(&mut Wave),
) -> Option<Run> {
    let bytes = common::assemble_gfx1100(src, setup.wave64)?;
    let prog = decode_text(&bytes, PC);
    let mem = GlobalMem::new();
    let env = Env {
        prog: &prog,
        mem: &mem,
        fault: setup.fault.map(Into::into),
    };
    let mut wave = Wave::new(setup.wave64);
    wave.set_exec(setup.exec.unwrap_or_else(|| wave.full_mask()));
    if let Some(mode) = setup.mode {
        wave.hwreg.mode = mode;
    }
    init(&mut wave);
    let mut lds = Lds::new(setup.lds_bytes);
    lds_init(&mut lds);
    let result = wave.run(&env, &mut lds, None, setup.quantum);
    Some(Run { wave, lds, result })
}

/// `run` of a program that must end cleanly: the wave after it.
pub fn ended(src: &str, setup: Setup, init: impl FnOnce(&mut Wave)) -> Option<Wave> {
    let r = run(src, setup, |_| {}, init)?;
    assert_eq!(r.result, Ok(Status::Ended), "program did not end cleanly");
    Some(r.wave)
}
