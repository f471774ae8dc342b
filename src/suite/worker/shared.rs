//! A frame payload in shared memory: one region per direction between a
//! parent and its worker, so a batch's buffers are written once by the end
//! that sends them and read where they lie by the other, instead of being
//! copied into a pipe and out again (every 4 KiB a pipe page allocated,
//! charged to the memory cgroup and freed: a third of the worker's CPU).
//!
//! A region is a `memfd_create(2)` file, mapped `MAP_SHARED` by both ends
//! and sealed against shrinking (`F_SEAL_SHRINK`, fcntl(2) "File Seals"),
//! so that neither end can truncate it under the other's mapping, which
//! would turn a read into SIGBUS. Only the writing end grows it. Who may
//! touch a region when is the protocol's alternation: an end writes its
//! region only before it sends the frame header that names those bytes
//! (the header crosses the pipe afterwards, and the pipe's write and read
//! order the two), and the reading end is done with them before it sends
//! its next frame, the only thing the writer waits for.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// A region grows to a multiple of this (and to at least the frame that
/// needed it), so a run of growing batches remaps a few times, not at each.
const GROW_STEP: usize = 1 << 20;

/// One direction's payload region (see the module docs).
#[derive(Debug)]
pub struct Shared {
    file: File,
    map: Option<memmap2::MmapMut>,
}

impl Shared {
    /// A new, empty region, sealed against shrinking, closed on `exec`
    /// (the parent hands it to one child by `dup2`, nothing else inherits
    /// it).
    pub fn create(name: &str) -> io::Result<Shared> {
        let name = CString::new(name).map_err(io::Error::other)?;
        // SAFETY: a valid C string; the flags are memfd_create(2)'s.
        let fd = unsafe {
            libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING)
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and is owned by nothing else.
        let file = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
        // SAFETY: fcntl on an open descriptor.
        if unsafe { libc::fcntl(fd, libc::F_ADD_SEALS, libc::F_SEAL_SHRINK) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Shared { file, map: None })
    }

    /// The region another process created, inherited as `fd`. Refused
    /// unless it is a memfd sealed against shrinking: an ordinary file, or
    /// one the other end could truncate, is not a region to map.
    pub fn from_fd(fd: OwnedFd) -> io::Result<Shared> {
        // SAFETY: fcntl on an open descriptor.
        let seals = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GET_SEALS) };
        if seals < 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "descriptor {} is not a shared-memory region (F_GET_SEALS: {e})",
                    fd.as_raw_fd()
                ),
            ));
        }
        if seals & libc::F_SEAL_SHRINK == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "descriptor {} is a memfd not sealed against shrinking",
                    fd.as_raw_fd()
                ),
            ));
        }
        Ok(Shared {
            file: File::from(fd),
            map: None,
        })
    }

    /// The descriptor, for the parent to hand to its child.
    pub fn raw_fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }

    /// The region's first `len` bytes to write, grown first if it is
    /// smaller.
    pub fn writable(&mut self, len: usize) -> io::Result<&mut [u8]> {
        if len == 0 {
            return Ok(&mut []);
        }
        Ok(&mut self.mapped(len, true)?[..len])
    }

    /// The first `len` bytes as this end wrote them through
    /// [`Shared::writable`] (empty past what it made writable).
    pub fn written(&self, len: usize) -> &[u8] {
        self.map
            .as_ref()
            .and_then(|m| m.get(..len))
            .unwrap_or_default()
    }

    /// Another handle on the same region (a `dup`), not mapped yet.
    pub fn try_clone(&self) -> io::Result<Shared> {
        Ok(Shared {
            file: self.file.try_clone()?,
            map: None,
        })
    }

    /// The region's first `len` bytes, as the other end wrote them. More
    /// than the region holds is an `InvalidData` error (a damaged header),
    /// never a read past the file.
    pub fn view(&mut self, len: usize) -> io::Result<&[u8]> {
        if len == 0 {
            return Ok(&[]);
        }
        Ok(&self.mapped(len, false)?[..len])
    }

    /// The mapping, at least `len` bytes: remapped if the file has grown
    /// (the other end grew it) or, when `grow`, grown first.
    fn mapped(&mut self, len: usize, grow: bool) -> io::Result<&mut memmap2::MmapMut> {
        if self.map.as_ref().is_none_or(|m| m.len() < len) {
            let mut size = usize::try_from(self.file.metadata()?.len()).unwrap_or(usize::MAX);
            if size < len {
                if !grow {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "a frame names {len} bytes of shared memory, the region holds {size}"
                        ),
                    ));
                }
                size = len.div_ceil(GROW_STEP).saturating_mul(GROW_STEP);
                self.file.set_len(size as u64)?;
            }
            // The old mapping goes first: the two are never both mapped.
            self.map = None;
            // SAFETY: a MAP_SHARED mapping of a memfd sealed against
            // shrinking, no longer than the file (so no access faults);
            // the other end writes it only when the protocol says this end
            // is not reading it (module docs).
            self.map = Some(unsafe { memmap2::MmapOptions::new().len(size).map_mut(&self.file)? });
        }
        self.map
            .as_mut()
            .ok_or_else(|| io::Error::other("shared region not mapped"))
    }
}

/// The environment variable that tells a child it was given regions, and
/// which descriptors they are: `<requests>,<answers>`.
pub const SHARED_FDS: &str = "DSXOR_WORKER_SHARED";

/// The descriptors a child finds its regions at (the first after stdio).
const CHILD_FDS: [RawFd; 2] = [3, 4];

/// Both directions' regions of one parent and child.
#[derive(Debug)]
pub struct Regions {
    /// The parent's requests, which the parent writes.
    pub requests: Shared,
    /// The child's answers, which the child writes.
    pub answers: Shared,
}

impl Regions {
    /// A parent's new pair, for one child.
    pub fn create() -> io::Result<Regions> {
        Ok(Regions {
            requests: Shared::create("dsxor-worker-requests")?,
            answers: Shared::create("dsxor-worker-answers")?,
        })
    }

    /// Have `cmd`'s process find these regions at [`CHILD_FDS`], named in
    /// [`SHARED_FDS`]. Nothing else inherits them: they are close-on-exec
    /// here, and only the `dup2` copies in that one child are not.
    pub fn hand_to(&self, cmd: &mut std::process::Command) {
        use std::os::unix::process::CommandExt;
        let from = [self.requests.raw_fd(), self.answers.raw_fd()];
        cmd.env(SHARED_FDS, format!("{},{}", CHILD_FDS[0], CHILD_FDS[1]));
        // SAFETY: between fork and exec, only fcntl and dup2, which are
        // async-signal-safe (signal-safety(7)), and no allocation. Each
        // region is first copied above the target numbers, so that one
        // `dup2` cannot overwrite the other's source.
        unsafe {
            cmd.pre_exec(move || {
                let mut high = [0; 2];
                for (h, fd) in high.iter_mut().zip(from) {
                    *h = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, CHILD_FDS[1] + 1);
                    if *h < 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                for (h, to) in high.into_iter().zip(CHILD_FDS) {
                    if libc::dup2(h, to) < 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }

    /// In a child: the regions its parent named in [`SHARED_FDS`]; none
    /// when it named none (the payloads then come in the pipe). Named but
    /// not open, or not sealed memfds, is an error.
    pub fn inherited() -> io::Result<Option<Regions>> {
        let Ok(named) = std::env::var(SHARED_FDS) else {
            return Ok(None);
        };
        let fds: Vec<Option<RawFd>> = named.split(',').map(|f| f.parse().ok()).collect();
        let [Some(requests), Some(answers)] = fds[..] else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{SHARED_FDS}={named:?}: want `<requests fd>,<answers fd>`"),
            ));
        };
        if requests == answers {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{SHARED_FDS}={named:?}: one descriptor for both directions"),
            ));
        }
        let take = |fd: RawFd| -> io::Result<Shared> {
            // Open, and close-on-exec from here on: what the runtime may
            // start does not inherit it. SAFETY: fcntl on a number.
            if fd < 0 || unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) } < 0 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{SHARED_FDS} names descriptor {fd}, which is not open"),
                ));
            }
            // SAFETY: open (checked above), and nothing else in this
            // process owns it: the parent put it there for this.
            Shared::from_fd(unsafe { OwnedFd::from_raw_fd(fd) })
        };
        Ok(Some(Regions {
            requests: take(requests)?,
            answers: take(answers)?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Write `bytes` at the region's start, as a sending end does.
    fn put(w: &mut Shared, bytes: &[u8]) {
        w.writable(bytes.len()).unwrap().copy_from_slice(bytes);
    }

    /// Two ends of one region, as a parent and child hold it: the reader
    /// maps the descriptor it was given, not the writer's mapping.
    fn pair() -> (Shared, Shared) {
        let w = Shared::create("dsxor-test").unwrap();
        // SAFETY: dup returns a new descriptor this test owns.
        let fd = unsafe { libc::dup(w.raw_fd()) };
        assert!(fd >= 0);
        let r = Shared::from_fd(unsafe { OwnedFd::from_raw_fd(fd) }).unwrap();
        (w, r)
    }

    #[test]
    fn the_reader_sees_what_the_writer_put_across_growth() {
        let (mut w, mut r) = pair();
        put(&mut w, b"hello");
        assert_eq!(r.view(5).unwrap(), b"hello");
        // Past the first step: the writer grows the file, the reader remaps.
        let big: Vec<u8> = (0..3 * GROW_STEP + 7).map(|i| (i % 251) as u8).collect();
        put(&mut w, &big);
        assert_eq!(r.view(big.len()).unwrap(), &big[..]);
        // A smaller frame after it is its own bytes.
        put(&mut w, b"bye");
        assert_eq!(r.view(3).unwrap(), b"bye");
        assert_eq!(r.view(0).unwrap(), b"");
    }

    #[test]
    fn a_length_past_the_region_is_an_error_not_a_fault() {
        let (mut w, mut r) = pair();
        put(&mut w, &[1; 10]);
        let e = r.view(GROW_STEP + 1).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
        assert!(e.to_string().contains("region holds"), "{e}");
    }

    #[test]
    fn a_region_cannot_be_shrunk_under_a_mapping() {
        let (mut w, r) = pair();
        put(&mut w, &[7; 100]);
        // The seal holds for every descriptor of the file.
        assert!(r.file.set_len(0).is_err());
        assert!(w.file.set_len(0).is_err());
    }

    #[test]
    fn only_a_sealed_memfd_is_taken() {
        let plain = File::open("/proc/self/exe").unwrap();
        let e = Shared::from_fd(OwnedFd::from(plain)).unwrap_err();
        assert!(e.to_string().contains("not a shared-memory region"), "{e}");
        // SAFETY: memfd_create with a valid name; the fd is owned below.
        let fd = unsafe { libc::memfd_create(c"dsxor-unsealed".as_ptr(), libc::MFD_CLOEXEC) };
        assert!(fd >= 0);
        let e = Shared::from_fd(unsafe { OwnedFd::from_raw_fd(fd) }).unwrap_err();
        assert!(e.to_string().contains("not sealed"), "{e}");
    }
}
