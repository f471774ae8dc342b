//! Helpers for `host_kernels_llvm` and `host_codeobj_llvm`: running the
//! LLVM oracles and reading their output.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shipped objects: kernels/prebuilt/*.co.
pub fn prebuilt_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/prebuilt")
}

/// One instruction line of `llvm-objdump -d`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjLine {
    /// The symbol it is under (`dsxor_conformance_off0`).
    pub symbol: String,
    pub addr: u64,
    pub mnemonic: String,
    /// Operands as printed (may be empty).
    pub operands: String,
    /// Encoding dwords as printed.
    pub words: Vec<u32>,
    /// For a branch into the same symbol: its target address.
    pub branch_target: Option<u64>,
}

fn run(tool: &Path, args: &[&str], file: &Path) -> String {
    let out = Command::new(tool)
        .args(args)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", tool.display()));
    assert!(
        out.status.success(),
        "{} {args:?} {} failed: {}",
        tool.display(),
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Disassemble `.text` of `file` with llvm-objdump.
pub fn objdump(tool: &Path, file: &Path) -> Vec<ObjLine> {
    let text = run(tool, &["-d", "--section=.text"], file);
    let mut lines = Vec::new();
    let mut symbol = String::new();
    let mut symbol_addr = 0u64;
    for l in text.lines() {
        // `0000000000003b00 <dsxor_conformance_off0>:`
        if let Some(rest) = l.strip_suffix(">:") {
            if let Some((addr, name)) = rest.split_once(" <") {
                // A label inside the function (`<kernel>.ds_xor_site`) does
                // not start a new symbol.
                if !symbol.is_empty() && name.starts_with(&format!("{symbol}.")) {
                    continue;
                }
                symbol = name.to_string();
                symbol_addr = u64::from_str_radix(addr.trim(), 16).unwrap_or(0);
            }
            continue;
        }
        // `\tds_xor_rtn_b64 v[3:4], v5, v[7:8] offset:8   // 000000003F80: D9AC0008 03000705`
        let Some((asm, comment)) = l.split_once("//") else {
            continue;
        };
        let Some((addr, words)) = comment.trim().split_once(':') else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        // Branch comments carry `<symbol+0x..>` after the words.
        let words: Vec<u32> = words
            .split_whitespace()
            .map_while(|w| u32::from_str_radix(w, 16).ok())
            .collect();
        // `<dsxor_throughput_dep+0x140>`
        let branch_target = comment
            .split_once(&format!("<{symbol}+0x"))
            .and_then(|(_, rest)| rest.split_once('>'))
            .and_then(|(off, _)| u64::from_str_radix(off, 16).ok())
            .map(|off| symbol_addr + off);
        let asm = asm.trim();
        let (mnemonic, operands) = asm.split_once(' ').unwrap_or((asm, ""));
        lines.push(ObjLine {
            symbol: symbol.clone(),
            addr,
            mnemonic: mnemonic.to_string(),
            operands: operands.trim().to_string(),
            words,
            branch_target,
        });
    }
    lines
}

/// The `.amdhsa_*` directives llvm-objdump prints for `<kernel>.kd`.
pub fn objdump_descriptor(tool: &Path, file: &Path, kernel: &str) -> Vec<(String, u64)> {
    let text = run(tool, &["-d", "--section=.rodata"], file);
    let mut out = Vec::new();
    let mut inside = false;
    for l in text.lines() {
        let l = l.trim();
        if l == format!(".amdhsa_kernel {kernel}") {
            inside = true;
            continue;
        }
        if inside && l == ".end_amdhsa_kernel" {
            break;
        }
        if inside {
            if let Some((k, v)) = l.split_once(' ') {
                if let (true, Ok(v)) = (k.starts_with(".amdhsa_"), v.trim().parse::<u64>()) {
                    out.push((k.to_string(), v));
                }
            }
        }
    }
    out
}

/// One kernel of `llvm-readelf --notes` (its YAML rendering of the msgpack note).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NoteKernel {
    /// `.offset`, `.size`, `.value_kind` of each arg.
    pub args: Vec<(u64, u64, String)>,
    /// Every other `.key: value` of the kernel map.
    pub fields: Vec<(String, String)>,
}

impl NoteKernel {
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Kernels of the metadata note as llvm-readelf prints them, plus the
/// top-level `amdhsa.*` scalars/lists as raw text.
pub fn readelf_notes(tool: &Path, file: &Path) -> (Vec<NoteKernel>, Vec<(String, String)>) {
    let text = run(tool, &["--notes"], file);
    let mut kernels: Vec<NoteKernel> = Vec::new();
    let mut top = Vec::new();
    let mut in_kernels = false;
    let mut arg: Option<(Option<u64>, Option<u64>, Option<String>)> = None;
    let flush = |arg: &mut Option<(Option<u64>, Option<u64>, Option<String>)>,
                 k: &mut Vec<NoteKernel>| {
        if let Some((Some(o), Some(s), Some(v))) = arg.take() {
            if let Some(last) = k.last_mut() {
                last.args.push((o, s, v));
            }
        }
    };
    for l in text.lines() {
        if l.starts_with("amdhsa.kernels:") {
            in_kernels = true;
            continue;
        }
        if l.starts_with("amdhsa.") {
            in_kernels = false;
            if let Some((k, v)) = l.split_once(':') {
                top.push((k.to_string(), v.trim().to_string()));
            }
            continue;
        }
        if !in_kernels {
            // `  - 1` items of a top-level list (amdhsa.version).
            if let (Some(item), Some((_, v))) = (l.trim().strip_prefix("- "), top.last_mut()) {
                if !v.is_empty() {
                    v.push(',');
                }
                v.push_str(item.trim());
            }
            continue;
        }
        // `  - .args:` starts a kernel; `      - .address_space:` starts an arg.
        let trimmed = l.trim_start();
        let indent = l.len() - trimmed.len();
        if trimmed.starts_with("- ") && indent == 2 {
            flush(&mut arg, &mut kernels);
            kernels.push(NoteKernel::default());
        }
        let item = trimmed.trim_start_matches("- ");
        let Some((key, value)) = item.split_once(':') else {
            continue;
        };
        let value = value.trim().to_string();
        if trimmed.starts_with("- ") && indent >= 6 {
            flush(&mut arg, &mut kernels);
            arg = Some((None, None, None));
        }
        let is_arg_field = indent >= 6;
        if is_arg_field {
            if let Some(a) = arg.as_mut() {
                match key {
                    ".offset" => a.0 = value.parse().ok(),
                    ".size" => a.1 = value.parse().ok(),
                    ".value_kind" => a.2 = Some(value),
                    _ => {}
                }
            }
        } else if key != ".args" {
            flush(&mut arg, &mut kernels);
            if let Some(k) = kernels.last_mut() {
                k.fields.push((key.to_string(), value));
            }
        }
    }
    flush(&mut arg, &mut kernels);
    (kernels, top)
}

/// `llvm-readelf -h` lines as (key, value).
pub fn readelf_header(tool: &Path, file: &Path) -> Vec<(String, String)> {
    run(tool, &["-h"], file)
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// `llvm-readelf -s` FUNC/OBJECT symbols as (name, value, size, type).
pub fn readelf_symbols(tool: &Path, file: &Path) -> Vec<(String, u64, u64, String)> {
    let text = run(tool, &["-s", "--wide"], file);
    let mut out = Vec::new();
    let mut in_symtab = false;
    for l in text.lines() {
        if l.starts_with("Symbol table") {
            in_symtab = l.contains("'.symtab'");
            continue;
        }
        if !in_symtab {
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() >= 8 && f[0].ends_with(':') {
            if let (Ok(v), Ok(s)) = (u64::from_str_radix(f[1], 16), f[2].parse::<u64>()) {
                out.push((f[7].to_string(), v, s, f[3].to_string()));
            }
        }
    }
    out
}
