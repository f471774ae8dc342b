//! Strict reading of the JSON files dsxor reads (observations, repro
//! files, results, case streams, bench records): an object with a repeated
//! key is refused (serde_json keeps the last one silently, and a file would
//! be judged on half of what it says), and a file is read only up to a
//! size limit (a 138 MB repro file took 2.3 GB to parse into a `Value`).

use std::io::Read as _;
use std::path::Path;

/// Policy: the largest observation, repro or bench record dsxor reads,
/// 64 MiB. The largest repro a default-suite run writes (an unminimized
/// case of the biggest geometry) is about 1.4 MB and a bench record a few
/// kB, so the limit leaves ~45x room and bounds memory to a few hundred MB.
pub const MAX_DOCUMENT_BYTES: u64 = 64 << 20;

/// Policy: the largest results file dsxor reads (merge, report), 256 MiB:
/// a results file lists every failing case (~500 bytes each), so a fully
/// failing run of ~500,000 cases still reads.
pub const MAX_RESULTS_BYTES: u64 = 256 << 20;

/// Policy: the longest line of a case stream, 1 MiB (a record is a few
/// hundred bytes); the stream itself is read line by line, any length.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

/// Refuse a JSON text with an object that repeats a key (anywhere, at any
/// depth). Syntax errors are reported too.
pub fn refuse_duplicate_keys(text: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<NoDuplicateKeys>(text).map(|_| ())
}

/// Read a UTF-8 file of at most `limit` bytes; a longer one is refused
/// (`InvalidData`, naming `what` and the limit) before it is read.
pub fn read_bounded(path: &Path, limit: u64, what: &str) -> std::io::Result<String> {
    String::from_utf8(read_bounded_bytes(path, limit, what)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Read a file of at most `limit` bytes; a longer one is refused
/// (`InvalidData`, naming `what` and the limit) before it is read.
pub fn read_bounded_bytes(path: &Path, limit: u64, what: &str) -> std::io::Result<Vec<u8>> {
    let too_big = |len: u64| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{len} bytes or more, over the {} MiB limit for a {what} (dsxor::json)",
                limit >> 20
            ),
        )
    };
    let file = open_for_reading(path)?;
    let len = file.metadata()?.len();
    if len > limit {
        return Err(too_big(len));
    }
    // The size can change while reading (a pipe, a growing file): read at
    // most one byte past the limit.
    let mut data = Vec::new();
    file.take(limit + 1).read_to_end(&mut data)?;
    if data.len() as u64 > limit {
        return Err(too_big(data.len() as u64));
    }
    Ok(data)
}

/// Open `path` for reading without waiting for a writer: a FIFO with none
/// would otherwise block open(2) forever (fifo(7)). O_NONBLOCK is cleared
/// once open, so reading a FIFO with a writer waits for its data, and one
/// with no writer reads as empty (end of file), which every reader then
/// refuses as malformed.
pub fn open_for_reading(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    clear_nonblock(&file)?;
    Ok(file)
}

/// Clear O_NONBLOCK on an open file (fcntl(2) F_GETFL/F_SETFL).
pub fn clear_nonblock(f: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = f.as_raw_fd();
    // SAFETY: fcntl on a descriptor `f` owns and keeps open for the call;
    // F_GETFL/F_SETFL change only its status flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// A JSON document walked only to refuse an object with a repeated key.
pub struct NoDuplicateKeys;

impl<'de> serde::Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NoDuplicateKeysVisitor)
    }
}

struct NoDuplicateKeysVisitor;

impl<'de> serde::de::Visitor<'de> for NoDuplicateKeysVisitor {
    type Value = NoDuplicateKeys;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        while a.next_element::<NoDuplicateKeys>()?.is_some() {}
        Ok(NoDuplicateKeys)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = m.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!("duplicate key `{key}`")));
            }
            m.next_value::<NoDuplicateKeys>()?;
        }
        Ok(NoDuplicateKeys)
    }
}

/// The complete lines of a JSON-lines file (a case stream), read one at a
/// time: memory holds one line, never the file. A line longer than the
/// limit is an error; a last line without its newline (a torn write by a
/// killed run) is not returned.
pub struct Lines {
    reader: std::io::BufReader<std::fs::File>,
    limit: u64,
    buf: Vec<u8>,
    /// 1-based number of the last line returned.
    pub number: u64,
}

impl Lines {
    pub fn open(path: &Path, limit: u64) -> std::io::Result<Lines> {
        Ok(Lines {
            reader: std::io::BufReader::new(open_for_reading(path)?),
            limit,
            buf: Vec::new(),
            number: 0,
        })
    }

    /// The next complete line without its newline; `None` at the end.
    pub fn next_line(&mut self) -> std::io::Result<Option<String>> {
        use std::io::BufRead as _;
        self.buf.clear();
        let n = (&mut self.reader)
            .take(self.limit + 1)
            .read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        if self.buf.last() != Some(&b'\n') {
            if self.buf.len() as u64 > self.limit {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "line {} is over the {} MiB limit for one line (dsxor::json)",
                        self.number + 1,
                        self.limit >> 20
                    ),
                ));
            }
            // A torn last line.
            return Ok(None);
        }
        self.buf.pop();
        self.number += 1;
        String::from_utf8(std::mem::take(&mut self.buf))
            .map(Some)
            .map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("line {}: {e}", self.number),
                )
            })
    }
}
