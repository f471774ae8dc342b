//! One workgroup's LDS allocation (the DS address calculation it is
//! indexed by, CalcDsAddr, is `case::calc_ds_addr`: every reader of a case
//! needs it).

use super::policy::{Policy, LDS_MAX_BYTES_PER_GROUP};
use super::ModelError;

/// What a 64-bit access to an effective address resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Aligned and inside the allocation: qword index.
    InRange(usize),
    /// Aligned, at or past the allocation's end: writes dropped, reads 0.
    OutOfRange,
    /// Not 8-byte aligned: MEMVIOL.
    Misaligned,
}

/// One workgroup's LDS: a byte-addressed allocation of `requested` bytes,
/// rounded up to the policy's granule. Stored as little-endian qwords since
/// the only access modelled is the aligned 64-bit one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lds {
    requested: u32,
    /// Qwords in range (`allocated` of them), then one "sink" qword that
    /// absorbs the dropped writes of the model's branch-free lane loop and
    /// is never visible.
    qwords: Vec<u64>,
    allocated: usize,
}

impl Lds {
    /// A zeroed allocation. `requested` must be a multiple of 8 and at most
    /// 64 KiB once rounded up.
    pub fn new(requested: u32, policy: &Policy) -> Result<Lds, ModelError> {
        Lds::with_image(requested, &[], policy)
    }

    /// An allocation whose first bytes hold `image` (qwords from address 0);
    /// the rest (including the slack past the request) is 0.
    pub fn with_image(requested: u32, image: &[u64], policy: &Policy) -> Result<Lds, ModelError> {
        if !requested.is_multiple_of(8) {
            return Err(ModelError::LdsSize {
                requested,
                why: "not a multiple of 8 bytes".into(),
            });
        }
        policy.validate()?;
        let allocated = policy.allocated_bytes(requested);
        if allocated > u64::from(LDS_MAX_BYTES_PER_GROUP) {
            return Err(ModelError::LdsSize {
                requested,
                why: format!(
                    "rounds up to {allocated} bytes, more than the {LDS_MAX_BYTES_PER_GROUP} a gfx11 workgroup may allocate"
                ),
            });
        }
        let n_req = requested as usize / 8;
        if image.len() > n_req {
            return Err(ModelError::ImageSize {
                qwords: image.len(),
                requested,
            });
        }
        let allocated = allocated as usize / 8;
        let mut qwords = vec![0u64; allocated + 1];
        qwords[..image.len()].copy_from_slice(image);
        Ok(Lds {
            requested,
            qwords,
            allocated,
        })
    }

    /// Bytes in range: the request rounded up to the granule.
    pub fn allocated_bytes(&self) -> u64 {
        self.allocated as u64 * 8
    }

    /// The requested part (what the conformance kernel copies in and dumps).
    pub fn image(&self) -> &[u64] {
        &self.qwords[..self.requested as usize / 8]
    }

    /// The slack between the request and the block end (in range, but no
    /// kernel initialises or dumps it).
    pub fn slack(&self) -> &[u64] {
        &self.qwords[self.requested as usize / 8..self.allocated]
    }

    /// Every qword in range, slack included.
    pub fn qwords(&self) -> &[u64] {
        &self.qwords[..self.allocated]
    }

    /// Resolve an effective byte address for a 64-bit access.
    #[inline(always)]
    pub fn access_b64(&self, address: u64) -> Access {
        if address & 7 != 0 {
            Access::Misaligned
        } else if address < self.allocated_bytes() {
            Access::InRange((address >> 3) as usize)
        } else {
            Access::OutOfRange
        }
    }

    /// Mutable view of every qword in range (for test set-up).
    pub fn qwords_mut(&mut self) -> &mut [u64] {
        &mut self.qwords[..self.allocated]
    }

    /// Qwords in range plus the sink at index `allocated_bytes() / 8`.
    pub(super) fn with_sink_mut(&mut self) -> &mut [u64] {
        &mut self.qwords
    }
}
