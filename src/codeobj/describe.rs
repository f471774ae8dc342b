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

/// The listing of [`describe`] as JSON for `--json` (addresses and
/// register words as hex strings, like the text listing).
pub fn describe_value(co: &CodeObject, ds: bool) -> serde_json::Value {
    use serde_json::json;
    let container = match &co.container {
        Container::Elf => json!({ "kind": "elf" }),
        Container::Bundle { entry_id, offset } => {
            json!({ "kind": "offload-bundle", "entry_id": entry_id, "offset": format!("{offset:#x}") })
        }
        Container::HostFatbin {
            e_machine,
            entry_id,
        } => json!({ "kind": "host-fatbin", "e_machine": e_machine, "entry_id": entry_id }),
    };
    let kernels: Vec<serde_json::Value> = co
        .kernels
        .iter()
        .map(|k| {
            let d = &k.descriptor;
            let metadata = k.metadata.as_ref().map(|m| {
                json!({
                    "sgpr_count": m.sgpr_count,
                    "vgpr_count": m.vgpr_count,
                    "agpr_count": m.agpr_count,
                    "wavefront_size": m.wavefront_size,
                    "kernarg_segment_size": m.kernarg_segment_size,
                    "kernarg_segment_align": m.kernarg_segment_align,
                    "group_segment_fixed_size": m.group_segment_fixed_size,
                    "private_segment_fixed_size": m.private_segment_fixed_size,
                    "args": m.args.iter().map(|a| json!({
                        "value_kind": a.value_kind.as_str(),
                        "offset": a.offset,
                        "size": a.size,
                    })).collect::<Vec<_>>(),
                })
            });
            let mut kernel = json!({
                "name": k.name,
                "entry": format!("{:#x}", k.entry_vaddr),
                "code_bytes": k.code_size,
                "wave": co.wave_size(k),
                "descriptor": {
                    "group_segment_fixed_size": d.group_segment_fixed_size,
                    "private_segment_fixed_size": d.private_segment_fixed_size,
                    "kernarg_size": d.kernarg_size,
                    "compute_pgm_rsrc1": format!("{:#010x}", d.compute_pgm_rsrc1),
                    "compute_pgm_rsrc2": format!("{:#010x}", d.compute_pgm_rsrc2),
                    "compute_pgm_rsrc3": format!("{:#010x}", d.compute_pgm_rsrc3),
                    "kernel_code_properties": format!("{:#06x}", d.kernel_code_properties),
                },
                "metadata": metadata,
            });
            if ds {
                kernel["ds_instructions"] = match co.ds_instructions(k) {
                    Ok(found) => found
                        .iter()
                        .map(|i| {
                            json!({
                                "address": format!("{:#x}", i.vaddr),
                                "dwords": [format!("{:08X}", i.word as u32), format!("{:08X}", (i.word >> 32) as u32)],
                                "text": i.text.as_ref().ok(),
                                "error": i.text.as_ref().err().map(|e| e.to_string()),
                            })
                        })
                        .collect(),
                    Err(e) => json!({ "error": e.to_string() }),
                };
            }
            kernel
        })
        .collect();
    json!({
        "target_id": co.triple_target_id(),
        "code_object_version": co.code_object_version,
        "e_flags": format!("{:#x}", co.header.e_flags),
        "container": container,
        "kernels": kernels,
    })
}
