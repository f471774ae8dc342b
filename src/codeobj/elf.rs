//! A bounds-checked reader for 64-bit little-endian ELF, the only form an
//! AMDGPU code object takes (AMDGPUUsage.rst, "ELF Code Object": ELFCLASS64,
//! ELFDATA2LSB, EM_AMDGPU). Every read goes through `Bytes`, which returns an
//! error instead of indexing out of range, so hostile input cannot panic.

use super::CodeObjectError;

/// `e_machine` of AMDGPU code objects (llvm/BinaryFormat/ELF.h: EM_AMDGPU = 224).
pub const EM_AMDGPU: u16 = 224;
/// `e_ident[EI_OSABI]` for the HSA runtime (ELF.h: ELFOSABI_AMDGPU_HSA = 64).
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;

pub const SHT_SYMTAB: u32 = 2;
pub const SHT_NOTE: u32 = 7;
pub const SHT_NOBITS: u32 = 8;
pub const SHT_DYNSYM: u32 = 11;
pub const SHF_EXECINSTR: u64 = 0x4;
pub const STT_OBJECT: u8 = 1;
pub const STT_FUNC: u8 = 2;

/// A byte slice with checked little-endian reads.
#[derive(Clone, Copy)]
pub struct Bytes<'a> {
    pub data: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }

    /// `len` bytes at `offset`, or a `Truncated` error naming `what`.
    pub fn slice(&self, offset: u64, len: u64, what: &str) -> Result<&'a [u8], CodeObjectError> {
        let end = offset.checked_add(len);
        match end {
            Some(end) if end <= self.data.len() as u64 => {
                // Both fit in usize: they are at most data.len().
                Ok(&self.data[offset as usize..end as usize])
            }
            _ => Err(CodeObjectError::Truncated {
                what: what.to_string(),
                offset,
                len,
                size: self.data.len() as u64,
            }),
        }
    }

    pub fn u8(&self, offset: u64, what: &str) -> Result<u8, CodeObjectError> {
        Ok(self.slice(offset, 1, what)?[0])
    }

    pub fn u16(&self, offset: u64, what: &str) -> Result<u16, CodeObjectError> {
        let s = self.slice(offset, 2, what)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }

    pub fn u32(&self, offset: u64, what: &str) -> Result<u32, CodeObjectError> {
        let s = self.slice(offset, 4, what)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    pub fn u64(&self, offset: u64, what: &str) -> Result<u64, CodeObjectError> {
        let s = self.slice(offset, 8, what)?;
        let mut b = [0u8; 8];
        b.copy_from_slice(s);
        Ok(u64::from_le_bytes(b))
    }
}

/// The ELF header fields dsxor uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElfHeader {
    pub osabi: u8,
    pub abiversion: u8,
    pub e_type: u16,
    pub e_machine: u16,
    pub e_flags: u32,
    pub e_shoff: u64,
    pub e_shnum: u16,
    pub e_shstrndx: u16,
}

/// One section header (Elf64_Shdr), with its name resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub sh_type: u32,
    pub sh_flags: u64,
    pub sh_addr: u64,
    pub sh_offset: u64,
    pub sh_size: u64,
    pub sh_link: u32,
    pub sh_entsize: u64,
}

/// One symbol (Elf64_Sym), with its name resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    /// STT_* (low 4 bits of st_info).
    pub sym_type: u8,
    /// STB_* (high 4 bits of st_info).
    pub binding: u8,
    pub shndx: u16,
    pub value: u64,
    pub size: u64,
}

/// One note record (Elf64_Nhdr + name + desc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note<'a> {
    pub name: &'a [u8],
    pub n_type: u32,
    pub desc: &'a [u8],
}

pub const ELF_MAGIC: &[u8; 4] = b"\x7fELF";

/// The header of an AMDGPU ELF (e_machine must be EM_AMDGPU).
pub fn parse_header(b: Bytes<'_>) -> Result<ElfHeader, CodeObjectError> {
    let header = parse_header_any_machine(b)?;
    if header.e_machine != EM_AMDGPU {
        return Err(CodeObjectError::WrongMachine {
            e_machine: header.e_machine,
        });
    }
    Ok(header)
}

/// The header of any 64-bit little-endian ELF (a host binary holding a
/// `.hip_fatbin`, say).
pub fn parse_header_any_machine(b: Bytes<'_>) -> Result<ElfHeader, CodeObjectError> {
    let ident = b.slice(0, 16, "ELF identification")?;
    if &ident[0..4] != ELF_MAGIC {
        return Err(CodeObjectError::NotElf);
    }
    if ident[4] != 2 {
        return Err(CodeObjectError::Unsupported(format!(
            "ELF class {} (AMDGPU code objects are ELFCLASS64)",
            ident[4]
        )));
    }
    if ident[5] != 1 {
        return Err(CodeObjectError::Unsupported(format!(
            "ELF data encoding {} (AMDGPU code objects are little-endian)",
            ident[5]
        )));
    }
    let header = ElfHeader {
        osabi: ident[7],
        abiversion: ident[8],
        e_type: b.u16(16, "e_type")?,
        e_machine: b.u16(18, "e_machine")?,
        e_flags: b.u32(48, "e_flags")?,
        e_shoff: b.u64(40, "e_shoff")?,
        e_shnum: b.u16(60, "e_shnum")?,
        e_shstrndx: b.u16(62, "e_shstrndx")?,
    };
    let shentsize = b.u16(58, "e_shentsize")?;
    if header.e_shnum != 0 && shentsize != 64 {
        return Err(CodeObjectError::Malformed(format!(
            "e_shentsize {shentsize} (Elf64_Shdr is 64 bytes)"
        )));
    }
    Ok(header)
}

/// A NUL-terminated string at `offset` of a string table.
pub fn c_str(table: &[u8], offset: u32, what: &str) -> Result<String, CodeObjectError> {
    let start = offset as usize;
    let rest = table.get(start..).ok_or_else(|| {
        CodeObjectError::Malformed(format!(
            "{what}: string offset {offset} past the string table ({} bytes)",
            table.len()
        ))
    })?;
    let len = rest.iter().position(|&c| c == 0).ok_or_else(|| {
        CodeObjectError::Malformed(format!("{what}: string at {offset} is not NUL-terminated"))
    })?;
    Ok(String::from_utf8_lossy(&rest[..len]).into_owned())
}

pub fn parse_sections(b: Bytes<'_>, h: &ElfHeader) -> Result<Vec<Section>, CodeObjectError> {
    // Raw headers first, names after (the name table is itself a section).
    let mut raw = Vec::with_capacity(h.e_shnum as usize);
    for i in 0..h.e_shnum as u64 {
        let off = h
            .e_shoff
            .checked_add(i * 64)
            .ok_or_else(|| CodeObjectError::Malformed("e_shoff overflows".into()))?;
        let what = format!("section header {i}");
        b.slice(off, 64, &what)?;
        raw.push((
            b.u32(off, &what)?,
            Section {
                name: String::new(),
                sh_type: b.u32(off + 4, &what)?,
                sh_flags: b.u64(off + 8, &what)?,
                sh_addr: b.u64(off + 16, &what)?,
                sh_offset: b.u64(off + 24, &what)?,
                sh_size: b.u64(off + 32, &what)?,
                sh_link: b.u32(off + 40, &what)?,
                sh_entsize: b.u64(off + 56, &what)?,
            },
        ));
    }
    if raw.is_empty() {
        return Ok(Vec::new());
    }
    let strtab = {
        let (_, s) = raw.get(h.e_shstrndx as usize).ok_or_else(|| {
            CodeObjectError::Malformed(format!(
                "e_shstrndx {} but only {} sections",
                h.e_shstrndx, h.e_shnum
            ))
        })?;
        b.slice(s.sh_offset, s.sh_size, "section name table")?
    };
    let mut out = Vec::with_capacity(raw.len());
    for (i, (name_off, mut s)) in raw.into_iter().enumerate() {
        s.name = c_str(strtab, name_off, &format!("name of section {i}"))?;
        if s.sh_type != SHT_NOBITS {
            b.slice(s.sh_offset, s.sh_size, &format!("section {}", s.name))?;
        }
        out.push(s);
    }
    Ok(out)
}

/// Symbols of the first SHT_SYMTAB section, else of SHT_DYNSYM.
pub fn parse_symbols(b: Bytes<'_>, sections: &[Section]) -> Result<Vec<Symbol>, CodeObjectError> {
    let table = sections
        .iter()
        .find(|s| s.sh_type == SHT_SYMTAB)
        .or_else(|| sections.iter().find(|s| s.sh_type == SHT_DYNSYM));
    let Some(table) = table else {
        return Ok(Vec::new());
    };
    let strtab_sec = sections.get(table.sh_link as usize).ok_or_else(|| {
        CodeObjectError::Malformed(format!(
            "symbol table {} links to section {} which does not exist",
            table.name, table.sh_link
        ))
    })?;
    let strtab = b.slice(
        strtab_sec.sh_offset,
        strtab_sec.sh_size,
        "symbol string table",
    )?;
    let data = b.slice(table.sh_offset, table.sh_size, "symbol table")?;
    if table.sh_entsize != 24 {
        return Err(CodeObjectError::Malformed(format!(
            "symbol table entry size {} (Elf64_Sym is 24 bytes)",
            table.sh_entsize
        )));
    }
    let d = Bytes::new(data);
    let n = data.len() / 24;
    let mut out = Vec::with_capacity(n);
    for i in 0..n as u64 {
        let off = i * 24;
        let what = "symbol";
        let info = d.u8(off + 4, what)?;
        out.push(Symbol {
            name: c_str(strtab, d.u32(off, what)?, "symbol name")?,
            sym_type: info & 0xf,
            binding: info >> 4,
            shndx: d.u16(off + 6, what)?,
            value: d.u64(off + 8, what)?,
            size: d.u64(off + 16, what)?,
        });
    }
    Ok(out)
}

fn align4(n: u64) -> Option<u64> {
    n.checked_add(3).map(|v| v & !3)
}

/// Note records of every SHT_NOTE section (AMDGPUUsage.rst, "Note Records":
/// 4-byte aligned name and desc).
pub fn parse_notes<'a>(
    b: Bytes<'a>,
    sections: &[Section],
) -> Result<Vec<Note<'a>>, CodeObjectError> {
    let mut notes = Vec::new();
    for s in sections.iter().filter(|s| s.sh_type == SHT_NOTE) {
        let data = Bytes::new(b.slice(s.sh_offset, s.sh_size, "note section")?);
        let mut off = 0u64;
        while off < data.data.len() as u64 {
            let what = format!("note header at {:#x} of {}", off, s.name);
            let namesz = data.u32(off, &what)? as u64;
            let descsz = data.u32(off + 4, &what)? as u64;
            let n_type = data.u32(off + 8, &what)?;
            let name_off = off + 12;
            let name = data.slice(name_off, namesz, &format!("note name at {off:#x}"))?;
            let desc_off = align4(name_off + namesz)
                .ok_or_else(|| CodeObjectError::BadNote("note name size overflows".into()))?;
            let desc = data.slice(desc_off, descsz, &format!("note desc at {off:#x}"))?;
            notes.push(Note {
                // The name's terminating NUL is part of namesz.
                name: name.strip_suffix(&[0]).unwrap_or(name),
                n_type,
                desc,
            });
            off = desc_off
                .checked_add(descsz)
                .and_then(align4)
                .ok_or_else(|| CodeObjectError::BadNote("note desc size overflows".into()))?;
        }
    }
    Ok(notes)
}

/// The contents of a host ELF's `.hip_fatbin` section (where clang/hipcc put
/// the offload bundle of a HIP program's device code), if it has one.
pub fn host_fatbin(data: &[u8]) -> Result<Option<&[u8]>, CodeObjectError> {
    let b = Bytes::new(data);
    let header = parse_header_any_machine(b)?;
    let sections = parse_sections(b, &header)?;
    match sections
        .iter()
        .find(|s| s.name == ".hip_fatbin" && s.sh_type != SHT_NOBITS)
    {
        Some(s) => Ok(Some(b.slice(s.sh_offset, s.sh_size, ".hip_fatbin")?)),
        None => Ok(None),
    }
}
