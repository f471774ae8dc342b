//! `dsxor qualify`: the software device held against a GPU.

use super::*;

#[derive(clap::Args, Debug)]
pub(crate) struct QualifyArgs {
    /// hip (a GPU: a qualification) or emu (both sides the software device:
    /// a check of the plumbing and of emu against the pseudocode).
    #[arg(long, default_value = "hip")]
    pub(crate) backend: String,
    /// HIP device ordinal (after HIP_VISIBLE_DEVICES).
    #[arg(long)]
    pub(crate) device: Option<u32>,
    /// Programs per instruction and wave size.
    #[arg(long, default_value_t = 18)]
    pub(crate) cases: u64,
    /// Seed of the programs' inputs (decimal or 0x-hex).
    #[arg(long, default_value = "1")]
    pub(crate) seed: String,
    /// A launch not complete after this long is a timeout: a disagreement
    /// (the program is recorded, the run goes on).
    /// 100ms to 1 day.
    #[arg(long, default_value = "10s", value_parser = timeout_value)]
    pub(crate) timeout: std::time::Duration,
    /// Directory of the record (qualify-<UTC>-<backend>-<target>.json).
    #[arg(long, default_value = "results")]
    pub(crate) out: std::path::PathBuf,
    /// Run only these instructions of the corpus (repeatable or
    /// comma-separated: DS atomics by LLVM mnemonic, e.g.
    /// ds_cmpstore_rtn_b32, ALU instructions by the table's mnemonic, e.g.
    /// v_bfe_i32 or v_add_co_ci_u32_e32, and ALU chains, e.g.
    /// chain_v_cmp_v_cndmask); default every one.
    #[arg(long = "instruction", value_delimiter = ',')]
    pub(crate) instructions: Vec<String>,
}

fn qualify_err(e: dsxor::qualify::QualifyError) -> Failure {
    match e {
        dsxor::qualify::QualifyError::Device { ref error, .. } if error.is_bad_input() => {
            bad_input(e)
        }
        _ => environment(e),
    }
}

/// Exit 0: the device, the software device and the pseudocode agreed on
/// every program; 1: a disagreement (a finding about the software device or
/// the GPU, listed in the record, not a ds_xor_rtn_b64 conformance
/// failure; a program that faults or times out on either side is one);
/// 2 bad input; 3 no device, or a launch failed for the environment (the
/// record of what ran before is written, saying `aborted`).
pub(crate) fn cmd_qualify(args: QualifyArgs) -> Outcome {
    use dsxor::backend::Backend;

    let seed = parse_seed(&args.seed)?;
    let timeout = args.timeout;
    if args.cases == 0 {
        return Err(bad_input(anyhow::anyhow!("--cases 0: expected at least 1")));
    }
    let (instructions, alu_names) = chosen_instructions(&args.instructions)?;
    // HIP runs in worker processes of this binary (suite::worker): on ROCm
    // 6.x a device fault abort()s the process that saw it (ROCm/clr
    // rocclr/device/rocm/rocdevice.cpp, callbackQueue), and current clr
    // latches a sticky error every later call returns, so a program that
    // faults must not take the run, or the programs after it, with it.
    let mut device_kind = match args.backend.as_str() {
        "hip" => open_hip(args.device, timeout)?,
        "emu" => QualifyDevice::Here(Box::new(emu_backend()?)),
        other => {
            return Err(bad_input(anyhow::anyhow!(
                "--backend {other:?}: expected hip or emu"
            )))
        }
    };
    let device: &mut dyn Backend = match &mut device_kind {
        QualifyDevice::Here(b) => b.as_mut(),
        QualifyDevice::Workers(w) => w.as_mut(),
    };
    let mut emu = emu_backend()?;
    let target = device.info().target_id.clone();
    if !target.starts_with("gfx11") {
        return Err(environment(anyhow::anyhow!(
            "the qualification corpus is for gfx11; device {} is {target}",
            device.info().name
        )));
    }
    let objects = embedded_objects(device.info(), &target)?;
    announce(&args, device.info(), seed);
    let mut record = dsxor::qualify::QualifyRecord::new(device.info(), emu.info(), seed);
    let opts = dsxor::qualify::Options {
        objects: &objects,
        seed,
        cases_per_wave: args.cases,
        timeout,
    };
    let mut ran = dsxor::qualify::qualify_into(
        &dsxor::qualify::DsCorpus,
        &mut record,
        device,
        &mut emu,
        &instructions,
        &opts,
        &mut |r| print_row(36, &r.instruction, r.agreed, r.programs, r.qualified),
    );
    if ran.is_ok() {
        ran = dsxor::qualify::qualify_into(
            &dsxor::qualify::alu::AluCorpus,
            &mut record,
            device,
            &mut emu,
            &alu_names,
            &opts,
            &mut |r| print_row(36, &r.instruction, r.agreed, r.programs, r.qualified),
        );
    }
    if let QualifyDevice::Workers(w) = &device_kind {
        record.worker_processes = Some(w.processes_started());
    }
    if let Err(e) = &ran {
        // What ran is recorded below, then the run ends with the error.
        record.aborted = Some(e.to_string());
    }
    print_disagreements(&record);
    let path = write_record(&args.out, &record, &target)?;
    print_totals(&record, &path);
    if let Err(e) = ran {
        outln!(
            "the run ended early; the record holds what ran before: {}",
            path.display()
        );
        return Err(qualify_err(e));
    }
    Ok(if record.all_agreed() {
        dsxor::exit::PASS
    } else {
        dsxor::exit::FAIL
    })
}

/// The software device on one thread: the side every program is held
/// against, and the device itself under `--backend emu`.
fn emu_backend() -> Result<dsxor::backend::emu::EmuBackend, Failure> {
    dsxor::backend::emu::EmuBackend::new(dsxor::emu::EmuConfig {
        threads: Some(1),
        ..Default::default()
    })
    .map_err(|e| {
        if e.is_bad_input() {
            bad_input(e)
        } else {
            environment(e)
        }
    })
}

/// The opening line: programs, seed, and the device qualified.
fn announce(args: &QualifyArgs, info: &dsxor::backend::DeviceInfo, seed: u64) {
    let target = &info.target_id;
    outln!(
        "qualify: {} programs per instruction and wave size, seed {seed}, on {} ({}, HIP runtime {}, driver {}) against the software device{}",
        args.cases,
        info.name,
        target,
        info.runtime_version.as_deref().unwrap_or("-"),
        info.driver_version.as_deref().unwrap_or("-"),
        if info.is_software_device() {
            " (both sides the software device: plumbing only)"
        } else {
            ""
        }
    );
}

/// The closing line: instructions qualified and disagreements, DS and ALU.
fn print_totals(record: &dsxor::qualify::QualifyRecord, path: &std::path::Path) {
    let qualified = record.instructions.iter().filter(|i| i.qualified).count();
    let alu_qualified = record
        .alu_instructions
        .iter()
        .filter(|i| i.qualified)
        .count();
    outln!(
        "{qualified} of {} instructions qualified, {} disagreements; ALU: {alu_qualified} of {} qualified, {} disagreements; record: {}",
        record.instructions.len(),
        record.disagreements.len(),
        record.alu_instructions.len(),
        record.alu_disagreements.len(),
        path.display()
    );
}

/// The embedded conformance kernel of `target` for each wave size the
/// device runs; an error when it has none.
fn embedded_objects(
    info: &dsxor::backend::DeviceInfo,
    target: &str,
) -> Result<Vec<(dsxor::case::WaveSize, &'static [u8])>, Failure> {
    let objects: Vec<(dsxor::case::WaveSize, &'static [u8])> = info
        .wave_sizes
        .iter()
        .filter_map(|&w| dsxor::case::WaveSize::from_lanes(w))
        .filter_map(|w| dsxor::codeobj::find_embedded(target, w).map(|o| (w, o.bytes)))
        .collect();
    if objects.is_empty() {
        return Err(environment(anyhow::anyhow!(
            "no embedded conformance kernel for {target}"
        )));
    }
    Ok(objects)
}

/// The DS atomics and the ALU instructions to qualify: those named (in the
/// corpus, each once), or the whole corpus.
fn chosen_instructions(
    names: &[String],
) -> Result<(Vec<&'static str>, Vec<&'static str>), Failure> {
    let alu_corpus = dsxor::qualify::alu::corpus_names();
    let corpus: Vec<&'static str> = dsxor::qualify::DS_ATOMICS
        .iter()
        .copied()
        .chain(alu_corpus.iter().copied())
        .collect();
    let chosen: Vec<&'static str> = if names.is_empty() {
        corpus.clone()
    } else {
        let mut chosen = Vec::new();
        for name in names {
            match corpus.iter().find(|c| **c == name.as_str()) {
                Some(c) if !chosen.contains(c) => chosen.push(*c),
                Some(_) => {}
                None => {
                    return Err(bad_input(anyhow::anyhow!(
                        "--instruction {name}: not in the corpus; it holds {}",
                        corpus.join(", ")
                    )))
                }
            }
        }
        chosen
    };
    Ok(chosen
        .into_iter()
        .partition(|n| dsxor::qualify::DS_ATOMICS.contains(n)))
}

/// Each disagreement, with its program for the ALU ones.
fn print_disagreements(record: &dsxor::qualify::QualifyRecord) {
    for d in &record.alu_disagreements {
        outln!(
            "disagreement: {} wave{} exec {:?}: {}\n{}",
            d.instruction,
            d.wave.lanes(),
            d.exec,
            d.summary,
            d.program.trim_end()
        );
    }
    for d in &record.disagreements {
        outln!(
            "disagreement: {} wave{} exec {:?}{}: {}",
            d.instruction,
            d.wave.lanes(),
            d.exec,
            if d.contended {
                " (contended: the order of lanes on one address is unspecified)"
            } else {
                ""
            },
            d.summary
        );
    }
}

/// Write the record as `OUT/qualify-<UTC>-<backend>-<target>.json`.
fn write_record(
    out: &std::path::Path,
    record: &dsxor::qualify::QualifyRecord,
    target: &str,
) -> Result<std::path::PathBuf, Failure> {
    std::fs::create_dir_all(out)
        .map_err(|e| environment(anyhow::anyhow!("cannot create {}: {e}", out.display())))?;
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .replace(['-', ':'], "");
    let path = out.join(format!(
        "qualify-{stamp}-{}-{}.json",
        record.device.backend.name(),
        target
    ));
    dsxor::report::results::write_atomic(&path, record).map_err(unwritten)?;
    Ok(path)
}

/// Where the HIP side of `qualify` runs.
enum QualifyDevice {
    /// In this process: the software device, or HIP when this binary cannot
    /// start itself as a worker.
    Here(Box<dyn dsxor::backend::Backend>),
    /// In worker processes of this binary, one after another.
    Workers(Box<dsxor::suite::worker::WorkerDevice>),
}

/// The HIP device `--device` names (or the first usable one), as worker
/// processes of this binary; in this process if its path is unknown.
fn open_hip(index: Option<u32>, timeout: std::time::Duration) -> Result<QualifyDevice, Failure> {
    use dsxor::backend::hip::{choose_device, device_info, HipBackend};
    use dsxor::suite::worker::{visible_entry, WorkerDevice, WorkerPlan, VISIBLE_DEVICES};
    let report = dsxor::hip::probe().map_err(|e| environment(anyhow::anyhow!("{e}")))?;
    let Ok(exe) = std::env::current_exe() else {
        return HipBackend::from_report(&report, index)
            .map(|b| QualifyDevice::Here(Box::new(b)))
            .map_err(|e| {
                if e.is_bad_input() {
                    bad_input(e)
                } else {
                    environment(e)
                }
            });
    };
    let props = choose_device(&report, index).map_err(|e| environment(anyhow::anyhow!("{e}")))?;
    let hip_visible = std::env::var(VISIBLE_DEVICES).ok();
    let cuda_visible = std::env::var("CUDA_VISIBLE_DEVICES").ok();
    Ok(QualifyDevice::Workers(Box::new(WorkerDevice::new(
        WorkerPlan {
            exe,
            visible: visible_entry(props.index, hip_visible.as_deref(), cuda_visible.as_deref()),
            info: device_info(&report, props),
            // qualify sends its programs' objects with each launch.
            objects: Vec::new(),
            timeout,
            label: format!("HIP device {}", props.index),
            batch: 1,
        },
    ))))
}

/// One instruction's line of qualify's table, its name padded to `width`.
fn print_row(width: usize, instruction: &str, agreed: u64, programs: u64, qualified: bool) {
    let verdict = if qualified {
        "qualified"
    } else {
        "NOT QUALIFIED"
    };
    outln!("{instruction:<width$} {agreed:>4} of {programs:>4} programs agree  {verdict}")
}
