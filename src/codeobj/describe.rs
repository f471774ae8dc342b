//! Human-readable listings of code objects for `dsxor kernels` and
//! `dsxor inspect`.

use std::fmt::Write as _;

use super::{CodeObject, CodeObjectError, Container, Kernel};

/// One kernel's summary line plus its argument layout.
fn describe_kernel(out: &mut String, co: &CodeObject, k: &Kernel) {
    let d = &k.descriptor;
    let _ = writeln!(
        out,
        "  {}  entry {:#x}  {} code bytes  wave{}",
        k.name,
        k.entry_vaddr,
        k.code_size,
        co.wave_size(k)
    );
    let _ = writeln!(
        out,
        "    descriptor: group_segment_fixed_size {}  private_segment_fixed_size {}  kernarg_size {}  \
         compute_pgm_rsrc1 {:#010x}  rsrc2 {:#010x}  rsrc3 {:#010x}  kernel_code_properties {:#06x}",
        d.group_segment_fixed_size,
        d.private_segment_fixed_size,
        d.kernarg_size,
        d.compute_pgm_rsrc1,
        d.compute_pgm_rsrc2,
        d.compute_pgm_rsrc3,
        d.kernel_code_properties
    );
    match &k.metadata {
        None => {
            let _ = writeln!(out, "    metadata: none for this kernel");
        }
        Some(m) => {
            let _ = writeln!(
                out,
                "    metadata: .sgpr_count {}  .vgpr_count {}{}  .wavefront_size {}  \
                 .kernarg_segment_size {}  .kernarg_segment_align {}  .group_segment_fixed_size {}  \
                 .private_segment_fixed_size {}",
                m.sgpr_count,
                m.vgpr_count,
                m.agpr_count.map(|a| format!("  .agpr_count {a}")).unwrap_or_default(),
                m.wavefront_size,
                m.kernarg_segment_size,
                m.kernarg_segment_align,
                m.group_segment_fixed_size,
                m.private_segment_fixed_size
            );
            let args: Vec<String> = m
                .args
                .iter()
                .map(|a| format!("{}@{}:{}", a.value_kind.as_str(), a.offset, a.size))
                .collect();
            let _ = writeln!(out, "    args: {}", args.join(" "));
        }
    }
}

fn header(out: &mut String, co: &CodeObject) {
    let container = match &co.container {
        Container::Elf => "ELF".to_string(),
        Container::Bundle { entry_id, offset } => {
            format!("offload bundle entry {entry_id} at {offset:#x}")
        }
        Container::HostFatbin {
            e_machine,
            entry_id,
        } => {
            format!("host ELF (e_machine {e_machine}) .hip_fatbin entry {entry_id}")
        }
    };
    let _ = writeln!(
        out,
        "  {}  code object v{}  e_flags {:#x}  {}  {} kernels",
        co.triple_target_id(),
        co.code_object_version
            .map(|v| v.to_string())
            .unwrap_or_else(|| "?".into()),
        co.header.e_flags,
        container,
        co.kernels.len()
    );
}

/// The listing of one object; with `ds`, each kernel's DS instructions too.
pub fn describe(co: &CodeObject, ds: bool) -> Result<String, CodeObjectError> {
    let mut out = String::new();
    header(&mut out, co);
    for k in &co.kernels {
        describe_kernel(&mut out, co, k);
        if ds {
            let found = match co.ds_instructions(k) {
                Ok(found) => found,
                Err(e) => {
                    // An object for a processor `isa` does not know still lists.
                    let _ = writeln!(out, "    DS instructions: not decoded ({e})");
                    continue;
                }
            };
            for i in found {
                let text = match &i.text {
                    Ok(t) => t.clone(),
                    Err(e) => format!("<op {}: {e}>", i.inst.op),
                };
                // Dwords in memory order, as llvm-objdump prints them.
                let _ = writeln!(
                    out,
                    "    {:#010x}: {:08X} {:08X}  {text}",
                    i.vaddr,
                    i.word as u32,
                    (i.word >> 32) as u32
                );
            }
        }
    }
    Ok(out)
}
