//! Clang offload bundles (clang/docs/ClangOffloadBundler.rst, "Bundled
//! Binary File Layout"): the magic `__CLANG_OFFLOAD_BUNDLE__`, a u64 entry
//! count, then per entry u64 offset, u64 size, u64 id length and the id
//! (`hipv4-amdgcn-amd-amdhsa--gfx1100`, `host-x86_64-unknown-linux-gnu-`).

use super::elf::Bytes;
use super::target::TargetId;
use super::CodeObjectError;

pub const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Compressed bundles (ClangOffloadBundler.rst, "Compression and
/// Decompression") start with this.
pub const COMPRESSED_MAGIC: &[u8] = b"CCOB";

/// One entry of a bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundleEntry {
    pub id: String,
    pub offset: u64,
    pub size: u64,
}

impl BundleEntry {
    /// The target id of an AMDGPU entry (`gfx90a:xnack-`), None for the host
    /// or another triple.
    pub fn amdgpu_target(&self) -> Option<TargetId> {
        let (kind_triple, target) = self.id.split_once("--")?;
        if !kind_triple.contains("amdgcn-amd-amdhsa") {
            return None;
        }
        TargetId::parse(target).ok()
    }
}

pub fn is_bundle(data: &[u8]) -> bool {
    data.starts_with(BUNDLE_MAGIC)
}

pub fn parse_entries(data: &[u8]) -> Result<Vec<BundleEntry>, CodeObjectError> {
    if data.starts_with(COMPRESSED_MAGIC) {
        return Err(CodeObjectError::Unsupported(
            "compressed clang offload bundle (CCOB); decompress it with `clang-offload-bundler --unbundle`".into(),
        ));
    }
    if !is_bundle(data) {
        return Err(CodeObjectError::Bundle(
            "no __CLANG_OFFLOAD_BUNDLE__ magic".into(),
        ));
    }
    let b = Bytes::new(data);
    let mut off = BUNDLE_MAGIC.len() as u64;
    let count = b.u64(off, "bundle entry count")?;
    off += 8;
    // Each entry header takes at least 24 bytes: a count beyond that is a lie.
    if count > data.len() as u64 / 24 {
        return Err(CodeObjectError::Bundle(format!(
            "{count} entries cannot fit in {} bytes",
            data.len()
        )));
    }
    let mut entries = Vec::with_capacity(count as usize);
    for i in 0..count {
        let what = format!("bundle entry {i}");
        let offset = b.u64(off, &what)?;
        let size = b.u64(off + 8, &what)?;
        let id_len = b.u64(off + 16, &what)?;
        let id = b.slice(off + 24, id_len, &format!("id of {what}"))?;
        off = off + 24 + id_len;
        b.slice(offset, size, &format!("contents of {what}"))?;
        // Ids are target triples and ids, ASCII text (ClangOffloadBundler.rst,
        // "Bundle Entry ID"): anything else is a damaged bundle, said so
        // rather than read as some other entry.
        let id = std::str::from_utf8(id)
            .map_err(|e| CodeObjectError::Bundle(format!("the id of {what} is not text: {e}")))?;
        // clang-offload-bundler refuses to write two entries of one id
        // ("Duplicate targets are not allowed", clang/test/Driver/
        // clang-offload-bundler.c); which of two a runtime loads is
        // unspecified, so dsxor refuses to choose too, in every command.
        if entries.iter().any(|e: &BundleEntry| e.id == id) {
            return Err(CodeObjectError::Bundle(format!(
                "two entries have the id `{id}` (a bundle holds one entry per target)"
            )));
        }
        entries.push(BundleEntry {
            id: id.to_string(),
            offset,
            size,
        });
    }
    Ok(entries)
}

/// Pick the AMDGPU entry for `target` (exact target id first, then an entry
/// of the same processor whose code runs on it, then a generic entry whose
/// family holds it — the runtime's preference of a specific object over a
/// generic one); with no target, the only AMDGPU entry.
pub fn select<'e>(
    entries: &'e [BundleEntry],
    target: Option<&TargetId>,
) -> Result<&'e BundleEntry, CodeObjectError> {
    let amd: Vec<(&BundleEntry, TargetId)> = entries
        .iter()
        .filter(|e| e.size > 0)
        .filter_map(|e| e.amdgpu_target().map(|t| (e, t)))
        .collect();
    if amd.is_empty() {
        let all: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        return Err(CodeObjectError::NoAmdgpuEntry {
            entries: if all.is_empty() {
                "none".to_string()
            } else {
                all.join(", ")
            },
        });
    }
    let available = || {
        amd.iter()
            .map(|(e, _)| e.id.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let chosen = match target {
        Some(want) => amd
            .iter()
            .find(|(_, t)| t == want)
            .or_else(|| {
                amd.iter()
                    .find(|(_, t)| t.processor == want.processor && t.runs_on(want))
            })
            .or_else(|| amd.iter().find(|(_, t)| t.runs_on(want))),
        None if amd.len() == 1 => amd.first(),
        None => None,
    };
    chosen
        .map(|(e, _)| *e)
        .ok_or_else(|| CodeObjectError::NoBundleEntry {
            target: target.map(|t| t.to_string()),
            available: available(),
        })
}

/// Build a bundle (used by tests and to hand a bundle to a runtime). Entries
/// are aligned to 4096 bytes like clang-offload-bundler's output.
pub fn write_bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut header = Vec::new();
    header.extend_from_slice(BUNDLE_MAGIC);
    header.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    let header_len: usize =
        BUNDLE_MAGIC.len() + 8 + entries.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
    let align = |n: usize| n.div_ceil(4096) * 4096;
    let mut offset = align(header_len);
    let mut offsets = Vec::new();
    for (id, data) in entries {
        header.extend_from_slice(&(offset as u64).to_le_bytes());
        header.extend_from_slice(&(data.len() as u64).to_le_bytes());
        header.extend_from_slice(&(id.len() as u64).to_le_bytes());
        header.extend_from_slice(id.as_bytes());
        offsets.push(offset);
        offset = align(offset + data.len());
    }
    let mut out = header;
    for ((_, data), off) in entries.iter().zip(offsets) {
        out.resize(off, 0);
        out.extend_from_slice(data);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specific_entries_win_generic_ones_cover_the_family() {
        let entry = |id: &str| BundleEntry {
            id: id.into(),
            offset: 4096,
            size: 16,
        };
        let entries = [
            entry("hipv4-amdgcn-amd-amdhsa--gfx11-generic"),
            entry("hipv4-amdgcn-amd-amdhsa--gfx1100"),
        ];
        let pick = |t: &str| {
            select(&entries, Some(&TargetId::parse(t).unwrap()))
                .map(|e| e.id.rsplit("--").next().unwrap_or("").to_string())
        };
        assert_eq!(pick("gfx1100").unwrap(), "gfx1100");
        assert_eq!(pick("gfx1101").unwrap(), "gfx11-generic");
        assert!(pick("gfx1030").is_err());
    }
}
