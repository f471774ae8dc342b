//! `model`: the specification of `ds_xor_rtn_b64` on gfx11, written from the
//! ISA's text (never from the emulator: ARCHITECTURE.md, independence rule).
//!
//! Semantics (seed 002 and RDNA3 ISA guide, DS_XOR_RTN_B64):
//! `addr = CalcDsAddr(ADDR, OFFSET0, OFFSET1); tmp = MEM[addr].b64;
//! MEM[addr].b64 = tmp ^ DATA.b64; RETURN_DATA.b64 = tmp`.
//!
//! Layers:
//! - [`Lds`] and [`calc_ds_addr`]: one workgroup's allocation and addressing.
//! - [`ds_xor_rtn_b64`]: one lane.
//! - [`ds_xor_rtn_b64_wave`]: one wave instruction in register view (EXEC,
//!   ADDR/DATA/VDST VGPR arrays, wave32 or wave64).
//! - [`ds_xor_rtn_b64_group`]: every lane of one workgroup issuing the
//!   instruction once, serialized in an explicit [`Order`].
//! - [`expect`]: a whole [`Case`] → [`Expected`] (returns per lane and final
//!   LDS per group, or a fault).
//!
//! Lanes of one instruction that hit one address are serialized in an order
//! the ISA leaves unspecified; each lane's read-modify-write is atomic
//! (RDNA3 ISA guide, "Data Share Operations"). The model therefore takes the
//! order as an input; `check` accepts every order.
//!
//! What the spec leaves open is in [`policy`], each a named value with its
//! source or marked ASSUMPTION.

mod lds;
pub mod policy;

pub use crate::case::{calc_ds_addr, calc_ds_addr16};
pub use lds::{Access, Lds};
pub use policy::{OutOfRangeReturn, Policy};

use crate::case::{Case, LaneInput, WaveSize};

/// A case or argument the model cannot evaluate (bad input, never a device result).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("LDS request of {requested} bytes is invalid: {why}")]
    LdsSize { requested: u32, why: String },
    #[error("LDS granule {0} is not a power of two of at most 65536 bytes")]
    Granule(u32),
    #[error("LDS image of {qwords} qwords does not fit a request of {requested} bytes")]
    ImageSize { qwords: usize, requested: u32 },
    #[error("case {pattern}#{index}: {why}")]
    CaseShape {
        pattern: String,
        index: u64,
        why: String,
    },
    #[error("serialization order is not a permutation of 0..{lanes}: {why}")]
    Order { lanes: usize, why: String },
    #[error("{what} has {got} entries, the wave has {lanes} lanes")]
    WaveShape {
        what: &'static str,
        got: usize,
        lanes: usize,
    },
}

/// The serialization order of the lanes of one instruction (one workgroup)
/// that share an address. Lane indices are group-local: `wave * wave_size +
/// lane`. Only the relative order of lanes on the same address matters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// Lane 0 of wave 0 first, then ascending through the waves.
    LaneAscending,
    /// The reverse.
    LaneDescending,
    /// An explicit permutation of `0..lanes_per_group`, first lane first.
    Explicit(Vec<u32>),
}

impl Order {
    pub fn name(&self) -> &'static str {
        match self {
            Order::LaneAscending => "lane-ascending",
            Order::LaneDescending => "lane-descending",
            Order::Explicit(_) => "explicit",
        }
    }

    fn validate(&self, lanes: usize) -> Result<(), ModelError> {
        let Order::Explicit(perm) = self else {
            return Ok(());
        };
        if perm.len() != lanes {
            return Err(ModelError::Order {
                lanes,
                why: format!("it has {} entries", perm.len()),
            });
        }
        let mut seen = vec![false; lanes];
        for &i in perm {
            match seen.get_mut(i as usize) {
                Some(s) if !*s => *s = true,
                Some(_) => {
                    return Err(ModelError::Order {
                        lanes,
                        why: format!("lane {i} appears twice"),
                    })
                }
                None => {
                    return Err(ModelError::Order {
                        lanes,
                        why: format!("lane {i} is out of range"),
                    })
                }
            }
        }
        Ok(())
    }
}

/// MEMVIOL raised by a misaligned 64-bit atomic. Lane index is group-local
/// from [`ds_xor_rtn_b64_group`], global (into `Case::lanes`) from [`expect`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memviol {
    pub group: u32,
    pub lane_index: usize,
    pub wave: u32,
    pub lane: u32,
    /// The effective (misaligned) byte address.
    pub address: u64,
}

/// Whether an instruction completed or faulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Executed {
    Completed,
    /// The first misaligned active lane (lowest index). The instruction as a
    /// whole faults: LDS and VDST are left untouched by the model, since
    /// nothing after a MEMVIOL is specified.
    Memviol(Memviol),
}

/// One lane's `ds_xor_rtn_b64`: returns the new VDST, or MEMVIOL (with the
/// effective address) if misaligned. Out of range: LDS unchanged, VDST per
/// `policy.out_of_range_return`.
#[inline(always)]
pub fn ds_xor_rtn_b64(
    lds: &mut Lds,
    policy: &Policy,
    addr: u32,
    offset: u16,
    data: u64,
    vdst: u64,
) -> Result<u64, u64> {
    let address = calc_ds_addr16(addr, offset);
    match lds.access_b64(address) {
        Access::InRange(q) => match lds.qwords_mut().get_mut(q) {
            Some(m) => {
                let tmp = *m;
                *m = tmp ^ data;
                Ok(tmp)
            }
            None => Ok(policy.out_of_range_return.model_value(vdst)),
        },
        Access::OutOfRange => Ok(policy.out_of_range_return.model_value(vdst)),
        Access::Misaligned => Err(address),
    }
}

/// Every lane of one workgroup issues `ds_xor_rtn_b64 vdst, addr, data
/// offset:offset` once; lanes run in `order`. `ret[i]` receives lane `i`'s
/// VDST after the instruction (inactive lanes: `vdst_init`, unchanged).
///
/// `lanes` are group-local (wave-major), `wave_size` names waves in faults.
pub fn ds_xor_rtn_b64_group(
    lds: &mut Lds,
    policy: &Policy,
    wave_size: WaveSize,
    lanes: &[LaneInput],
    offset: u16,
    order: &Order,
    ret: &mut [u64],
) -> Result<Executed, ModelError> {
    if ret.len() != lanes.len() {
        return Err(ModelError::WaveShape {
            what: "ret",
            got: ret.len(),
            lanes: lanes.len(),
        });
    }
    order.validate(lanes.len())?;
    // MEMVIOL is decided for the instruction before any lane's update. A
    // branch-free OR over all lanes first; the slow search only on a hit.
    let misaligned = lanes.iter().fold(0u64, |acc, l| {
        acc | ((calc_ds_addr16(l.addr, offset) & 7) * u64::from(l.active))
    });
    if misaligned != 0 {
        if let Some((i, address)) = lanes.iter().enumerate().find_map(|(i, l)| {
            let a = calc_ds_addr16(l.addr, offset);
            (l.active && a & 7 != 0).then_some((i, a))
        }) {
            let ws = wave_size.lanes() as usize;
            return Ok(Executed::Memviol(Memviol {
                group: 0,
                lane_index: i,
                wave: (i / ws) as u32,
                lane: (i % ws) as u32,
                address,
            }));
        }
    }
    let oor_keeps_vdst = policy.out_of_range_return == OutOfRangeReturn::VdstUnchanged;
    let size = lds.allocated_bytes();
    let sink = (size / 8) as usize;
    let Some(mem) = lds.with_sink_mut().get_mut(..=sink) else {
        // The sink always exists (Lds invariant); nothing to do otherwise.
        return Ok(Executed::Completed);
    };
    // Misalignment is excluded above, so each lane is the in-range or
    // out-of-range case of `ds_xor_rtn_b64`. Branch-free: an out-of-range
    // lane reads and writes the sink, an inactive lane XORs 0, and VDST is
    // selected with masks (`OutOfRangeReturn::model_value`, spelled out).
    let step = |mem: &mut [u64], l: &LaneInput, r: &mut u64| {
        let address = calc_ds_addr16(l.addr, offset);
        let in_range = address < size;
        let q = ((address >> 3) as usize).min(sink);
        let live = 0u64.wrapping_sub(u64::from(l.active));
        let hit = 0u64.wrapping_sub(u64::from(l.active & in_range));
        let keep = 0u64.wrapping_sub(u64::from(!l.active | (!in_range & oor_keeps_vdst)));
        if let Some(m) = mem.get_mut(q) {
            let tmp = *m;
            *m = tmp ^ (l.data & live);
            *r = (tmp & hit) | (l.vdst_init & keep);
        }
    };
    match order {
        Order::LaneAscending => {
            for (l, r) in lanes.iter().zip(ret.iter_mut()) {
                step(mem, l, r);
            }
        }
        Order::LaneDescending => {
            for (l, r) in lanes.iter().zip(ret.iter_mut()).rev() {
                step(mem, l, r);
            }
        }
        Order::Explicit(perm) => {
            for &i in perm {
                if let (Some(l), Some(r)) = (lanes.get(i as usize), ret.get_mut(i as usize)) {
                    step(mem, l, r);
                }
            }
        }
    }
    Ok(Executed::Completed)
}

/// One wave instruction in register view: EXEC selects the lanes (bits
/// 63:32 ignored in wave32: RDNA3 ISA guide, "EXEC"), `addr`/`data`/`vdst`
/// are the ADDR, DATA0:DATA1 and VDST VGPRs, one entry per lane. `vdst` is
/// updated in place; inactive lanes keep theirs. `order` permutes `0..lanes`.
#[allow(clippy::too_many_arguments)]
pub fn ds_xor_rtn_b64_wave(
    lds: &mut Lds,
    policy: &Policy,
    wave_size: WaveSize,
    exec: u64,
    addr: &[u32],
    data: &[u64],
    vdst: &mut [u64],
    offset: u16,
    order: &Order,
) -> Result<Executed, ModelError> {
    let n = wave_size.lanes() as usize;
    for (what, got) in [
        ("addr", addr.len()),
        ("data", data.len()),
        ("vdst", vdst.len()),
    ] {
        if got != n {
            return Err(ModelError::WaveShape {
                what,
                got,
                lanes: n,
            });
        }
    }
    let mut lanes = [LaneInput {
        addr: 0,
        data: 0,
        active: false,
        vdst_init: 0,
    }; 64];
    for (i, l) in lanes.iter_mut().take(n).enumerate() {
        *l = LaneInput {
            addr: addr.get(i).copied().unwrap_or(0),
            data: data.get(i).copied().unwrap_or(0),
            active: exec >> i & 1 == 1,
            vdst_init: vdst.get(i).copied().unwrap_or(0),
        };
    }
    let mut ret = [0u64; 64];
    let r = ds_xor_rtn_b64_group(
        lds,
        policy,
        wave_size,
        &lanes[..n],
        offset,
        order,
        &mut ret[..n],
    )?;
    if r == Executed::Completed {
        vdst.copy_from_slice(&ret[..n]);
    }
    Ok(r)
}

/// The model's expectation for a completed case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// Per lane (same order as `Case::lanes`), VDST after the instruction.
    pub ret: Vec<u64>,
    /// Per workgroup, the requested LDS image after the instruction.
    pub lds_final: Vec<Vec<u64>>,
    /// Per workgroup, the slack past the request after the instruction,
    /// computed as if the slack started zeroed (the kernel does not set it;
    /// `check` never relies on these values).
    pub slack_final: Vec<Vec<u64>>,
}

/// What the model says one case must do under one order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    Completed(Expectation),
    /// A misaligned active lane: the dispatch must fault (MEMVIOL).
    Fault(Memviol),
}

/// Check that a case is internally consistent (sizes agree).
pub fn validate_case(case: &Case) -> Result<(), ModelError> {
    let bad = |why: String| ModelError::CaseShape {
        pattern: case.pattern.clone(),
        index: case.index,
        why,
    };
    let g = &case.geometry;
    if g.waves_per_group == 0 || g.groups == 0 {
        return Err(bad(format!(
            "geometry has {} groups of {} waves",
            g.groups, g.waves_per_group
        )));
    }
    if case.lanes.len() != g.total_lanes() {
        return Err(bad(format!(
            "{} lanes, geometry needs {}",
            case.lanes.len(),
            g.total_lanes()
        )));
    }
    if !case.lds_bytes.is_multiple_of(8) {
        return Err(bad(format!(
            "lds_bytes {} is not a multiple of 8",
            case.lds_bytes
        )));
    }
    if case.lds_init.len() != g.groups as usize {
        return Err(bad(format!(
            "{} LDS images for {} groups",
            case.lds_init.len(),
            g.groups
        )));
    }
    if let Some((i, img)) = case
        .lds_init
        .iter()
        .enumerate()
        .find(|(_, img)| img.len() != case.lds_qwords())
    {
        return Err(bad(format!(
            "LDS image of group {i} has {} qwords, lds_bytes needs {}",
            img.len(),
            case.lds_qwords()
        )));
    }
    if let Some((r, round)) =
        case.more_rounds.iter().enumerate().find(|(_, r)| {
            r.data.len() != case.lanes.len() || r.vdst_init.len() != case.lanes.len()
        })
    {
        return Err(bad(format!(
            "round {} has {} DATA and {} VDST values for {} lanes",
            r + 1,
            round.data.len(),
            round.vdst_init.len(),
            case.lanes.len()
        )));
    }
    if let Some(t) = &case.traffic {
        validate_traffic(case, t).map_err(bad)?;
    }
    Ok(())
}

/// A case's background traffic is what the traffic kernels can run and
/// the checker can judge: a role and a spin per lane; each traffic lane
/// inactive for the atomic, on an aligned qword inside the allocation that
/// no other lane of its workgroup (traffic, or active) addresses.
fn validate_traffic(case: &Case, t: &crate::case::Traffic) -> Result<(), String> {
    let n = case.lanes.len();
    if t.lanes.len() != n || t.spin.len() != n {
        return Err(format!(
            "traffic has {} roles and {} spins for {n} lanes",
            t.lanes.len(),
            t.spin.len()
        ));
    }
    let per_group = (case.geometry.lanes_per_group() as usize).max(1);
    let mut owners = std::collections::BTreeMap::new();
    for (i, l) in case.lanes.iter().enumerate() {
        let q = (i / per_group, calc_ds_addr16(l.addr, case.offset));
        if t.lanes[i] {
            if l.active {
                return Err(format!("traffic lane {i} is active for the atomic"));
            }
            if !q.1.is_multiple_of(8) || q.1 + 8 > u64::from(case.lds_bytes) {
                return Err(format!(
                    "traffic lane {i}'s qword at byte {} is not an aligned qword of the {}-byte allocation",
                    q.1, case.lds_bytes
                ));
            }
        }
        if t.lanes[i] || l.active {
            // Any lane addressing a traffic qword shares it: refused below.
            let q8 = (q.0, q.1 & !7);
            if let Some(&(j, jt)) = owners.get(&q8) {
                if jt || t.lanes[i] {
                    return Err(format!(
                        "traffic lane {} shares its qword at byte {} with lane {}",
                        if t.lanes[i] { i } else { j },
                        q8.1,
                        if t.lanes[i] { j } else { i }
                    ));
                }
            } else {
                owners.insert(q8, (i, t.lanes[i]));
            }
        }
    }
    Ok(())
}

/// The expectation for `case` when every workgroup serializes its lanes in
/// `order` (an `Explicit` order permutes `0..lanes_per_group`, applied to
/// every group).
///
/// Rounds: each workgroup's rounds run one after another on its LDS (the
/// kernel's barrier orders them), each in `order`; `ret` is round-major
/// (`ret[r * lanes + i]`), as in `Observation`.
pub fn expect(case: &Case, order: &Order, policy: &Policy) -> Result<Expected, ModelError> {
    validate_case(case)?;
    let per_group = case.geometry.lanes_per_group() as usize;
    let n = case.lanes.len();
    let mut ret = vec![0u64; n * case.rounds()];
    // Round r's lanes: round 0's addresses and EXEC, round r's DATA and VDST.
    let round_lanes: Vec<Vec<LaneInput>> = (1..case.rounds())
        .map(|r| {
            case.lanes
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let (data, vdst_init) = case.round_input(r, i).unwrap_or((0, 0));
                    LaneInput {
                        data,
                        vdst_init,
                        ..*l
                    }
                })
                .collect()
        })
        .collect();
    let mut lds_final = Vec::with_capacity(case.lds_init.len());
    let mut slack_final = Vec::with_capacity(case.lds_init.len());
    for (g, img) in case.lds_init.iter().enumerate() {
        let mut lds = Lds::with_image(case.lds_bytes, img, policy)?;
        for r in 0..case.rounds() {
            let all = match r {
                0 => &case.lanes,
                _ => &round_lanes[r - 1],
            };
            let lanes = all.get(g * per_group..(g + 1) * per_group).unwrap_or(&[]);
            let out = ret
                .get_mut(r * n + g * per_group..r * n + (g + 1) * per_group)
                .unwrap_or(&mut []);
            match ds_xor_rtn_b64_group(
                &mut lds,
                policy,
                case.geometry.wave_size,
                lanes,
                case.offset,
                order,
                out,
            )? {
                Executed::Completed => {}
                Executed::Memviol(m) => {
                    return Ok(Expected::Fault(Memviol {
                        group: g as u32,
                        lane_index: g * per_group + m.lane_index,
                        ..m
                    }))
                }
            }
        }
        lds_final.push(lds.image().to_vec());
        slack_final.push(lds.slack().to_vec());
    }
    Ok(Expected::Completed(Expectation {
        ret,
        lds_final,
        slack_final,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Geometry;

    fn lane(addr: u32, data: u64) -> LaneInput {
        LaneInput {
            addr,
            data,
            active: true,
            vdst_init: 0xdead_beef_dead_beef,
        }
    }

    #[test]
    fn seed_semantics_one_lane() {
        let p = Policy::GFX11;
        let mut lds = Lds::with_image(64, &[0, 0x0123_4567_89ab_cdef], &p).unwrap();
        let r = ds_xor_rtn_b64(&mut lds, &p, 0, 8, 0xff, 7).unwrap();
        assert_eq!(r, 0x0123_4567_89ab_cdef);
        assert_eq!(lds.image()[1], 0x0123_4567_89ab_cd10);
    }

    #[test]
    fn offset_bytes_combine_low_high() {
        assert_eq!(calc_ds_addr(0x10, 0xff, 0xff), 0x10 + 0xffff);
        assert_eq!(calc_ds_addr(0, 0x08, 0x01), 0x108);
        assert_eq!(
            calc_ds_addr(u32::MAX, 0xff, 0xff),
            u64::from(u32::MAX) + 0xffff
        );
    }

    #[test]
    fn slack_is_in_range_and_past_block_is_not() {
        let p = Policy::GFX11;
        let mut lds = Lds::new(8, &p).unwrap();
        assert_eq!(lds.allocated_bytes(), 512);
        assert_eq!(ds_xor_rtn_b64(&mut lds, &p, 504, 0, 5, 9), Ok(0));
        assert_eq!(lds.slack()[62], 5);
        assert_eq!(ds_xor_rtn_b64(&mut lds, &p, 504, 0, 5, 9), Ok(5));
        let before = lds.clone();
        assert_eq!(ds_xor_rtn_b64(&mut lds, &p, 512, 0, 5, 9), Ok(0));
        let unchanged = Policy {
            out_of_range_return: OutOfRangeReturn::VdstUnchanged,
            ..p
        };
        assert_eq!(ds_xor_rtn_b64(&mut lds, &unchanged, 0, 4096, 5, 9), Ok(9));
        assert_eq!(lds, before);
    }

    #[test]
    fn misaligned_is_memviol_even_out_of_range() {
        let p = Policy::GFX11;
        let mut lds = Lds::new(64, &p).unwrap();
        assert_eq!(ds_xor_rtn_b64(&mut lds, &p, 4, 0, 1, 0), Err(4));
        assert_eq!(ds_xor_rtn_b64(&mut lds, &p, 0, 0xfffc, 1, 0), Err(0xfffc));
        assert_eq!(lds.image(), &[0u64; 8]);
    }

    #[test]
    fn lds_request_limits() {
        let p = Policy::GFX11;
        assert!(Lds::new(65536, &p).is_ok());
        assert!(matches!(
            Lds::new(65544, &p),
            Err(ModelError::LdsSize { .. })
        ));
        assert!(matches!(Lds::new(12, &p), Err(ModelError::LdsSize { .. })));
        assert!(matches!(
            Lds::with_image(8, &[1, 2], &p),
            Err(ModelError::ImageSize { .. })
        ));
    }

    #[test]
    fn group_order_decides_returns() {
        let p = Policy::GFX11;
        let lanes = [lane(0, 1), lane(0, 2), lane(0, 4)];
        let mut ret = [0; 3];
        let mut lds = Lds::new(8, &p).unwrap();
        let e = ds_xor_rtn_b64_group(
            &mut lds,
            &p,
            WaveSize::Wave32,
            &lanes,
            0,
            &Order::LaneAscending,
            &mut ret,
        );
        assert_eq!(e, Ok(Executed::Completed));
        assert_eq!(ret, [0, 1, 3]);
        let mut lds = Lds::new(8, &p).unwrap();
        ds_xor_rtn_b64_group(
            &mut lds,
            &p,
            WaveSize::Wave32,
            &lanes,
            0,
            &Order::LaneDescending,
            &mut ret,
        )
        .unwrap();
        assert_eq!(ret, [6, 4, 0]);
        let mut lds = Lds::new(8, &p).unwrap();
        ds_xor_rtn_b64_group(
            &mut lds,
            &p,
            WaveSize::Wave32,
            &lanes,
            0,
            &Order::Explicit(vec![1, 2, 0]),
            &mut ret,
        )
        .unwrap();
        assert_eq!(ret, [6, 0, 2]);
        assert_eq!(lds.image(), &[7]);
    }

    #[test]
    fn bad_orders_are_errors() {
        let p = Policy::GFX11;
        let lanes = [lane(0, 1), lane(0, 2)];
        let mut ret = [0; 2];
        let mut lds = Lds::new(8, &p).unwrap();
        for perm in [vec![0], vec![0, 0], vec![0, 2]] {
            let r = ds_xor_rtn_b64_group(
                &mut lds,
                &p,
                WaveSize::Wave32,
                &lanes,
                0,
                &Order::Explicit(perm),
                &mut ret,
            );
            assert!(matches!(r, Err(ModelError::Order { .. })), "{r:?}");
        }
    }

    #[test]
    fn wave_exec_mask_wave32_ignores_high_bits() {
        let p = Policy::GFX11;
        let mut lds = Lds::new(256, &p).unwrap();
        let addr: Vec<u32> = (0..32).map(|i| i * 8).collect();
        let data: Vec<u64> = (0..32).map(|i| 1u64 << i).collect();
        let mut vdst = vec![0x5a5a; 32];
        let exec = 0xffff_ffff_0000_0005;
        let r = ds_xor_rtn_b64_wave(
            &mut lds,
            &p,
            WaveSize::Wave32,
            exec,
            &addr,
            &data,
            &mut vdst,
            0,
            &Order::LaneAscending,
        );
        assert_eq!(r, Ok(Executed::Completed));
        assert_eq!(vdst[0], 0);
        assert_eq!(vdst[1], 0x5a5a);
        assert_eq!(vdst[2], 0);
        assert_eq!(lds.image()[0], 1);
        assert_eq!(lds.image()[1], 0);
        assert_eq!(lds.image()[2], 4);
        assert_eq!(lds.image().iter().filter(|&&q| q != 0).count(), 2);
        let short = ds_xor_rtn_b64_wave(
            &mut lds,
            &p,
            WaveSize::Wave64,
            exec,
            &addr,
            &data,
            &mut vdst,
            0,
            &Order::LaneAscending,
        );
        assert!(matches!(short, Err(ModelError::WaveShape { .. })));
    }

    #[test]
    fn expect_reports_fault_with_global_lane() {
        let geometry = Geometry {
            wave_size: WaveSize::Wave32,
            waves_per_group: 1,
            groups: 2,
            mode: crate::case::Mode::Wgp,
        };
        let mut lanes = vec![lane(0, 1); 64];
        lanes[40].addr = 12;
        let case = Case {
            pattern: "t".into(),
            index: 0,
            geometry,
            lds_bytes: 64,
            offset: 0,
            lds_init: vec![vec![0; 8]; 2],
            lanes,
            more_rounds: Vec::new(),
            stress: None,
            traffic: None,
        };
        match expect(&case, &Order::LaneAscending, &Policy::GFX11).unwrap() {
            Expected::Fault(m) => {
                assert_eq!(
                    (m.group, m.lane_index, m.wave, m.lane, m.address),
                    (1, 40, 0, 8, 12)
                )
            }
            e => panic!("{e:?}"),
        }
        let mut inactive = case.clone();
        inactive.lanes[40].active = false;
        assert!(matches!(
            expect(&inactive, &Order::LaneAscending, &Policy::GFX11),
            Ok(Expected::Completed(_))
        ));
        let mut short = case;
        short.lanes.pop();
        assert!(matches!(
            expect(&short, &Order::LaneAscending, &Policy::GFX11),
            Err(ModelError::CaseShape { .. })
        ));
    }
}
