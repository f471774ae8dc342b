//! Vector ALU semantics: the VALU opcodes (per-lane maps and the rest),
//! VOPC compares and VOPD dual issue. The generic path and the
//! pre-resolved handlers both call them.

use super::bits::{bfe_i, bfe_u, mask32};
use super::operand::Operand;
use super::{NoSemantics, Wave};
use crate::emu::vext;

/// Why a VALU instruction stopped the wave.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum ValuStop {
    /// An opcode with no semantic arm.
    NoSemantics(NoSemantics),
    /// The instruction's own stop (`emu::vext`'s M0-relative index past
    /// v255), its text.
    Stop(String),
}
use crate::emu::decode::{vext_ops, Cmp, Src, VOp, VopdHalf, VopdOp, VCC_LO};

/// The VALU opcodes that are not per-lane maps (lane reads and writes,
/// 64-bit results, carry-outs): `valu_other` runs them, or `emu::vext`
/// those of `vext_ops!` (`Wave::valu` sends those there), and they have
/// no pre-resolved handler. The one list of them, a pattern read by
/// `valu_map`'s exhaustive match and by [`is_lane_map`].
macro_rules! not_lane_maps {
    () => {
        vext_ops!()
            | VOp::Nop
            | VOp::SwapB32
            | VOp::ReadfirstlaneB32
            | VOp::ReadlaneB32
            | VOp::WritelaneB32
            | VOp::MbcntLoU32B32
            | VOp::MbcntHiU32B32
            | VOp::LshlrevB64
            | VOp::LshrrevB64
            | VOp::AshrrevI64
            | VOp::AddCoU32
            | VOp::SubCoU32
            | VOp::SubrevCoU32
            | VOp::AddCoCiU32
            | VOp::SubCoCiU32
            | VOp::SubrevCoCiU32
            | VOp::MadU64U32
            | VOp::MadI64I32
    };
}

/// Whether `valu_map` runs `op` (a per-lane map of its sources), so that
/// it has a pre-resolved handler; the rest are `valu_other`'s.
pub(super) fn is_lane_map(op: VOp) -> bool {
    !matches!(op, not_lane_maps!())
}

impl Wave {
    pub(super) fn vopc(&mut self, cmp: Cmp, cmpx: bool, sdst: u8, src0: Src, src1: Src) {
        let exec = self.exec();
        let n = self.lanes as usize;
        let mut res = 0u64;
        if cmp.wide {
            let mut a = [0u64; 64];
            let mut b = [0u64; 64];
            self.vread64(src0, &mut a);
            self.vread64(src1, &mut b);
            for l in 0..n {
                let r = if cmp.signed {
                    cmp_apply(cmp.cond, (a[l] as i64).cmp(&(b[l] as i64)))
                } else {
                    cmp_apply(cmp.cond, a[l].cmp(&b[l]))
                };
                res |= (r as u64) << l;
            }
        } else {
            let mut a = [0u32; 64];
            let mut b = [0u32; 64];
            self.vread(src0, &mut a);
            self.vread(src1, &mut b);
            for l in 0..n {
                let r = if cmp.signed {
                    cmp_apply(cmp.cond, (a[l] as i32).cmp(&(b[l] as i32)))
                } else {
                    cmp_apply(cmp.cond, a[l].cmp(&b[l]))
                };
                res |= (r as u64) << l;
            }
        }
        // Inactive lanes get 0 in the destination mask (RDNA3 guide §"Vector compare").
        let res = res & exec;
        if cmpx {
            // gfx11 v_cmpx writes EXEC only (VOPCInstructions.td: no SDST for cmpx).
            self.set_exec(res);
        } else {
            self.write_mask(sdst, res);
        }
    }

    pub(super) fn vopd(&mut self, x: &VopdHalf, y: &VopdHalf) {
        // Both halves read their sources before either writes (dual issue).
        let exec = self.exec();
        let vcc = self.read_mask(Src::S(VCC_LO));
        let mut rx = [0u32; 64];
        let mut ry = [0u32; 64];
        self.vopd_half(x, vcc, &mut rx);
        self.vopd_half(y, vcc, &mut ry);
        self.vwrite(x.vdst, &rx, exec);
        self.vwrite(y.vdst, &ry, exec);
    }

    fn vopd_half(&self, h: &VopdHalf, vcc: u64, out: &mut [u32; 64]) {
        let mut a = [0u32; 64];
        let mut b = [0u32; 64];
        self.vread(h.src0, &mut a);
        self.vread(Src::V(h.vsrc1), &mut b);
        for l in 0..64 {
            out[l] = match h.op {
                VopdOp::MovB32 => a[l],
                VopdOp::CndmaskB32 => {
                    if vcc >> l & 1 != 0 {
                        b[l]
                    } else {
                        a[l]
                    }
                }
                VopdOp::AddNcU32 => a[l].wrapping_add(b[l]),
                VopdOp::LshlrevB32 => b[l] << (a[l] & 31),
                VopdOp::AndB32 => a[l] & b[l],
            };
        }
    }

    /// Run one `Inst::Valu`: a lane map, one of `valu_other`'s, or one
    /// of `emu::vext`'s (`op_sel` is only theirs).
    pub(super) fn valu(
        &mut self,
        op: VOp,
        vdst: u8,
        sdst: u8,
        src: &[Src; 3],
        op_sel: u8,
    ) -> Result<(), ValuStop> {
        if op.in_vext() {
            let x = vext::Operands {
                op,
                vdst,
                src,
                op_sel,
            };
            return vext::exec(self, &x).map_err(|e| match e {
                vext::VxError::NotHere(name) => ValuStop::NoSemantics(NoSemantics(name)),
                vext::VxError::Stop(why) => ValuStop::Stop(why),
            });
        }
        if self.valu_map(op, vdst, src) {
            return Ok(());
        }
        self.valu_other(op, vdst, sdst, src)
            .map_err(ValuStop::NoSemantics)
    }

    /// The pure per-lane VALU operations (`vdst = f(src...)` in the lanes of
    /// EXEC): one lane loop over the wave's own lane count (32 or 64),
    /// sources borrowed in place or broadcast. False, with nothing done,
    /// for any other opcode. A new per-lane opcode is one arm here (and one
    /// name in `op_for_isa`'s list to get its own pre-resolved handler).
    #[inline(always)]
    pub(super) fn valu_map<S: Operand>(&mut self, op: VOp, vdst: u8, src: &[S; 3]) -> bool {
        use VOp::*;
        let exec = self.exec();
        macro_rules! map2 {
            ($f:expr) => {{
                if self.lanes == 32 {
                    self.lanes2::<32, S>(vdst, src[0], src[1], exec, $f)
                } else {
                    self.lanes2::<64, S>(vdst, src[0], src[1], exec, $f)
                }
            }};
        }
        macro_rules! map3 {
            ($f:expr) => {{
                if self.lanes == 32 {
                    self.lanes3::<32, S>(vdst, src, exec, $f)
                } else {
                    self.lanes3::<64, S>(vdst, src, exec, $f)
                }
            }};
        }
        match op {
            NotB32 => map2!(|x: u32, _| !x),
            BfrevB32 => map2!(|x: u32, _| x.reverse_bits()),
            ClzI32U32 => map2!(|x: u32, _| if x == 0 { u32::MAX } else { x.leading_zeros() }),
            CtzI32B32 => map2!(|x: u32, _| if x == 0 { u32::MAX } else { x.trailing_zeros() }),
            ClsI32 => map2!(|x: u32, _| if x == 0 || x == u32::MAX {
                u32::MAX
            } else {
                (x ^ ((x as i32 >> 31) as u32)).leading_zeros()
            }),
            AddNcU32 => map2!(|x: u32, y: u32| x.wrapping_add(y)),
            SubNcU32 => map2!(|x: u32, y: u32| x.wrapping_sub(y)),
            SubrevNcU32 => map2!(|x: u32, y: u32| y.wrapping_sub(x)),
            MulI32I24 => map2!(|x: u32, y: u32| (sext24(x) * sext24(y)) as u32),
            MulHiI32I24 => map2!(|x: u32, y: u32| ((sext24(x) * sext24(y)) >> 32) as u32),
            MulU32U24 => {
                map2!(|x: u32, y: u32| ((x & 0xff_ffff) as u64 * (y & 0xff_ffff) as u64) as u32)
            }
            MulHiU32U24 => map2!(|x: u32, y: u32| (((x & 0xff_ffff) as u64
                * (y & 0xff_ffff) as u64)
                >> 32) as u32),
            MinI32 => map2!(|x: u32, y: u32| (x as i32).min(y as i32) as u32),
            MaxI32 => map2!(|x: u32, y: u32| (x as i32).max(y as i32) as u32),
            MinU32 => map2!(|x: u32, y: u32| x.min(y)),
            MaxU32 => map2!(|x: u32, y: u32| x.max(y)),
            // "rev" shifts: the shift amount is src0, low 5 bits.
            LshrrevB32 => map2!(|x: u32, y: u32| y >> (x & 31)),
            AshrrevI32 => map2!(|x: u32, y: u32| ((y as i32) >> (x & 31)) as u32),
            LshlrevB32 => map2!(|x: u32, y: u32| y << (x & 31)),
            AndB32 => map2!(|x: u32, y: u32| x & y),
            OrB32 => map2!(|x: u32, y: u32| x | y),
            XorB32 => map2!(|x: u32, y: u32| x ^ y),
            XnorB32 => map2!(|x: u32, y: u32| !(x ^ y)),
            BfmB32 => map2!(|x: u32, y: u32| mask32(x & 31) << (y & 31)),
            BcntU32B32 => map2!(|x: u32, y: u32| x.count_ones().wrapping_add(y)),
            MulLoU32 => map2!(|x: u32, y: u32| x.wrapping_mul(y)),
            // V_ADD_NC_I32 / V_SUB_NC_I32 without clamp: wrapping (clamp is refused at decode).
            AddNcI32 => map2!(|x: u32, y: u32| x.wrapping_add(y)),
            SubNcI32 => map2!(|x: u32, y: u32| x.wrapping_sub(y)),
            SadU8 => map3!(|x: u32, y: u32, z: u32| sad_u8(x, y, z, false)),
            MsadU8 => map3!(|x: u32, y: u32, z: u32| sad_u8(x, y, z, true)),
            // V_SAD_HI_U8: D0 = (v_sad_u8(S0, S1, 0) << 16) + S2.
            SadHiU8 => {
                map3!(|x: u32, y: u32, z: u32| (sad_u8(x, y, 0, false) << 16).wrapping_add(z))
            }
            // V_SAD_U16: S2 + |S0[15:0] - S1[15:0]| + |S0[31:16] - S1[31:16]|.
            SadU16 => map3!(|x: u32, y: u32, z: u32| z
                .wrapping_add((x & 0xffff).abs_diff(y & 0xffff))
                .wrapping_add((x >> 16).abs_diff(y >> 16))),
            SadU32 => map3!(|x: u32, y: u32, z: u32| x.abs_diff(y).wrapping_add(z)),
            LerpU8 => map3!(|x: u32, y: u32, z: u32| lerp_u8(x, y, z)),
            MulHiU32 => map2!(|x: u32, y: u32| ((x as u64 * y as u64) >> 32) as u32),
            MulHiI32 => map2!(|x: u32, y: u32| ((x as i32 as i64 * y as i32 as i64) >> 32) as u32),
            LshlAddU32 => map3!(|x: u32, y: u32, z: u32| (x << (y & 31)).wrapping_add(z)),
            AddLshlU32 => map3!(|x: u32, y: u32, z: u32| x.wrapping_add(y) << (z & 31)),
            LshlOrB32 => map3!(|x: u32, y: u32, z: u32| (x << (y & 31)) | z),
            AndOrB32 => map3!(|x: u32, y: u32, z: u32| (x & y) | z),
            Or3B32 => map3!(|x: u32, y: u32, z: u32| x | y | z),
            Xor3B32 => map3!(|x: u32, y: u32, z: u32| x ^ y ^ z),
            Add3U32 => map3!(|x: u32, y: u32, z: u32| x.wrapping_add(y).wrapping_add(z)),
            XadU32 => map3!(|x: u32, y: u32, z: u32| (x ^ y).wrapping_add(z)),
            // V_BFE_*: offset S1[4:0], width S2[4:0].
            BfeU32 => map3!(|x: u32, y: u32, z: u32| bfe_u(x as u64, y & 31, z & 31) as u32),
            BfeI32 => {
                map3!(|x: u32, y: u32, z: u32| bfe_i(x as i32 as i64, y & 31, z & 31) as u32)
            }
            BfiB32 => map3!(|x: u32, y: u32, z: u32| (x & y) | (!x & z)),
            AlignbitB32 => {
                map3!(|x: u32, y: u32, z: u32| ((((x as u64) << 32) | y as u64) >> (z & 31)) as u32)
            }
            AlignbyteB32 => map3!(|x: u32, y: u32, z: u32| ((((x as u64) << 32) | y as u64)
                >> (8 * (z & 3)))
                as u32),
            PermB32 => map3!(|x: u32, y: u32, z: u32| perm(x, y, z)),
            MadU32U24 => map3!(|x: u32, y: u32, z: u32| ((x & 0xff_ffff)
                .wrapping_mul(y & 0xff_ffff))
            .wrapping_add(z)),
            MadI32I24 => {
                map3!(|x: u32, y: u32, z: u32| ((sext24(x) * sext24(y)) as u32).wrapping_add(z))
            }
            Min3I32 => {
                map3!(|x: u32, y: u32, z: u32| (x as i32).min(y as i32).min(z as i32) as u32)
            }
            Min3U32 => map3!(|x: u32, y: u32, z: u32| x.min(y).min(z)),
            Max3I32 => {
                map3!(|x: u32, y: u32, z: u32| (x as i32).max(y as i32).max(z as i32) as u32)
            }
            Max3U32 => map3!(|x: u32, y: u32, z: u32| x.max(y).max(z)),
            Med3I32 => map3!(|x: u32, y: u32, z: u32| med3(x as i32, y as i32, z as i32) as u32),
            Med3U32 => map3!(|x: u32, y: u32, z: u32| med3(x, y, z)),
            // "D0.i32 = v_min_i32(v_max_i32(S0.i32, S1.i32), S2.i32)"
            MaxminI32 => {
                map3!(|x: u32, y: u32, z: u32| (x as i32).max(y as i32).min(z as i32) as u32)
            }
            // "D0.u32 = v_min_u32(v_max_u32(S0.u32, S1.u32), S2.u32)"
            MaxminU32 => map3!(|x: u32, y: u32, z: u32| x.max(y).min(z)),
            // "D0.i32 = v_max_i32(v_min_i32(S0.i32, S1.i32), S2.i32)"
            MinmaxI32 => {
                map3!(|x: u32, y: u32, z: u32| (x as i32).min(y as i32).max(z as i32) as u32)
            }
            // "D0.u32 = v_max_u32(v_min_u32(S0.u32, S1.u32), S2.u32)"
            MinmaxU32 => map3!(|x: u32, y: u32, z: u32| x.min(y).max(z)),
            MovB32 => map2!(|x: u32, _| x),
            // V_CVT_F32_UBYTEn: "D0.f32 = 32'F(S0[8n + 7 : 8n].u32)" (RDNA3
            // guide, VOP1): every byte value is an exact f32.
            CvtF32Ubyte0 => map2!(|x: u32, _| (x as u8 as f32).to_bits()),
            CvtF32Ubyte1 => map2!(|x: u32, _| ((x >> 8) as u8 as f32).to_bits()),
            CvtF32Ubyte2 => map2!(|x: u32, _| ((x >> 16) as u8 as f32).to_bits()),
            CvtF32Ubyte3 => map2!(|x: u32, _| ((x >> 24) as u8 as f32).to_bits()),
            // V_CNDMASK_B32: D = VCC/S2 lane bit ? S1 : S0.
            CndmaskB32 => {
                if self.lanes == 32 {
                    self.cndmask::<32, S>(vdst, src, exec)
                } else {
                    self.cndmask::<64, S>(vdst, src, exec)
                }
            }
            // Not per-lane maps: `valu_other`'s, named by
            // `not_lane_maps!`, not `_`, so that a new opcode does not
            // compile until it is given an arm here or a place there.
            not_lane_maps!() => return false,
        }
        true
    }

    /// The VALU opcodes that are not per-lane maps: lane reads and writes,
    /// 64-bit results, carry-outs. Stops with [`no_semantics`] on an opcode
    /// it has no arm for.
    ///
    /// [`no_semantics`]: super::no_semantics
    pub(super) fn valu_other(
        &mut self,
        op: VOp,
        vdst: u8,
        sdst: u8,
        src: &[Src; 3],
    ) -> Result<(), NoSemantics> {
        use VOp::*;
        let exec = self.exec();
        let n = self.lanes as usize;
        let mut a = [0u32; 64];
        let mut b = [0u32; 64];
        let mut d = [0u32; 64];
        match op {
            Nop => {}
            SwapB32 => {
                // V_SWAP_B32: tmp = D0; D0 = S0; S0 = tmp (the decoder guarantees a VGPR src0).
                if let Src::V(r) = src[0] {
                    self.vread(Src::V(vdst), &mut a);
                    self.vread(Src::V(r), &mut b);
                    self.vwrite(vdst, &b, exec);
                    self.vwrite(r, &a, exec);
                }
            }
            ReadfirstlaneB32 => {
                // The lowest active lane; lane 0 when EXEC is 0 (RDNA3 guide).
                let lane = if exec == 0 {
                    0
                } else {
                    exec.trailing_zeros() as usize
                };
                let v = match src[0] {
                    Src::V(r) => self.vgpr(r as usize, lane),
                    other => self.s32(other),
                };
                self.sw(sdst, v);
            }
            ReadlaneB32 => {
                let lane = (self.s32(src[1]) & (self.lanes - 1)) as usize;
                let v = match src[0] {
                    Src::V(r) => self.vgpr(r as usize, lane),
                    other => self.s32(other),
                };
                self.sw(vdst, v);
            }
            WritelaneB32 => {
                // Ignores EXEC (RDNA3 guide: "writes a lane regardless of EXEC").
                let v = self.s32(src[0]);
                let lane = (self.s32(src[1]) & (self.lanes - 1)) as usize;
                self.set_vgpr(vdst as usize, lane, v);
            }
            MbcntLoU32B32 | MbcntHiU32B32 => {
                // Count of set bits of S0 below this lane (lanes 0–31 for lo,
                // 32–63 for hi), plus S1 (RDNA3 guide v_mbcnt_*).
                self.vread(src[0], &mut a);
                self.vread(src[1], &mut b);
                for l in 0..64 {
                    let below = if op == MbcntLoU32B32 {
                        if l >= 32 {
                            u32::MAX
                        } else {
                            (1u32 << l).wrapping_sub(1)
                        }
                    } else if l < 32 {
                        0
                    } else if l >= 64 {
                        u32::MAX
                    } else {
                        (1u64 << (l - 32)).wrapping_sub(1) as u32
                    };
                    d[l] = (a[l] & below).count_ones().wrapping_add(b[l]);
                }
                self.vwrite(vdst, &d, exec);
            }
            LshlrevB64 | LshrrevB64 | AshrrevI64 => {
                self.vread(src[0], &mut a);
                let mut v = [0u64; 64];
                self.vread64(src[1], &mut v);
                let mut r = [0u64; 64];
                for l in 0..64 {
                    let sh = a[l] & 63;
                    r[l] = match op {
                        LshlrevB64 => v[l] << sh,
                        LshrrevB64 => v[l] >> sh,
                        _ => ((v[l] as i64) >> sh) as u64,
                    };
                }
                self.vwrite64(vdst, &r, exec);
            }
            AddCoU32 | SubCoU32 | SubrevCoU32 | AddCoCiU32 | SubCoCiU32 | SubrevCoCiU32 => {
                self.vread(src[0], &mut a);
                self.vread(src[1], &mut b);
                let cin = match op {
                    AddCoCiU32 | SubCoCiU32 | SubrevCoCiU32 => self.read_mask(src[2]),
                    _ => 0,
                };
                let mut cout = 0u64;
                for l in 0..n {
                    let ci = cin >> l & 1;
                    let (x, y) = match op {
                        SubrevCoU32 | SubrevCoCiU32 => (b[l] as u64, a[l] as u64),
                        _ => (a[l] as u64, b[l] as u64),
                    };
                    let (r, co) = match op {
                        AddCoU32 | AddCoCiU32 => {
                            let t = x + y + ci;
                            (t as u32, t >> 32 != 0)
                        }
                        _ => (x.wrapping_sub(y).wrapping_sub(ci) as u32, y + ci > x),
                    };
                    d[l] = r;
                    cout |= (co as u64) << l;
                }
                self.vwrite(vdst, &d, exec);
                // Carry bits of inactive lanes are written as 0.
                self.write_mask(sdst, cout & exec);
            }
            MadU64U32 | MadI64I32 => {
                self.vread(src[0], &mut a);
                self.vread(src[1], &mut b);
                let mut acc = [0u64; 64];
                self.vread64(src[2], &mut acc);
                let mut r = [0u64; 64];
                let mut cout = 0u64;
                for l in 0..n {
                    let (v, co) = if op == MadU64U32 {
                        let p = a[l] as u128 * b[l] as u128 + acc[l] as u128;
                        (p as u64, p >> 64 != 0)
                    } else {
                        // { D1.i1, D0.i64 } = 65'B(65'I(S0.i32) * 65'I(S1.i32) + 65'I(S2.i64)):
                        // the exact sum fits 65 bits, so D1 (bit 64) is its sign.
                        let p = a[l] as i32 as i128 * b[l] as i32 as i128 + acc[l] as i64 as i128;
                        (p as u64, p < 0)
                    };
                    r[l] = v;
                    cout |= (co as u64) << l;
                }
                self.vwrite64(vdst, &r, exec);
                self.write_mask(sdst, cout & exec);
            }
            // `valu_map`'s match names every opcode, so only its own lane
            // maps come here, and it has done them; anything else is an
            // opcode listed there as `valu_other`'s without an arm above.
            other => return Err(NoSemantics(other.name())),
        }
        Ok(())
    }
}

fn cmp_apply(cond: u8, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match cond {
        0 => false,
        1 => o == Less,
        2 => o == Equal,
        3 => o != Greater,
        4 => o == Greater,
        5 => o != Equal,
        6 => o != Less,
        _ => true,
    }
}

#[inline]
fn sext24(x: u32) -> i64 {
    (((x << 8) as i32) >> 8) as i64
}

/// V_SAD_U8 (`masked`: V_MSAD_U8, bytes whose reference S1 byte is 0 are
/// skipped): S2 + the sum over the four bytes of |S0[b] - S1[b]|.
fn sad_u8(x: u32, y: u32, acc: u32, masked: bool) -> u32 {
    (0..4).fold(acc, |t, k| {
        let (p, q) = ((x >> (8 * k)) & 0xff, (y >> (8 * k)) & 0xff);
        if masked && q == 0 {
            t
        } else {
            t.wrapping_add(p.abs_diff(q))
        }
    })
}

/// V_LERP_U8: per byte, (S0[b] + S1[b] + S2[8b]) >> 1 (the rounding bit is
/// the low bit of S2's byte).
fn lerp_u8(x: u32, y: u32, z: u32) -> u32 {
    (0..4).fold(0u32, |t, k| {
        let sh = 8 * k;
        let v = (((x >> sh) & 0xff) + ((y >> sh) & 0xff) + ((z >> sh) & 1)) >> 1;
        t | (v & 0xff) << sh
    })
}

pub(super) fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    a.max(b).min(a.min(b).max(c))
}

/// V_PERM_B32: each selector byte of S2 picks a byte of {S0, S1} or a
/// constant (RDNA3 guide v_perm_b32 pseudocode).
pub(super) fn perm(s0: u32, s1: u32, sel: u32) -> u32 {
    let data = ((s0 as u64) << 32) | s1 as u64;
    let mut out = 0u32;
    for k in 0..4 {
        let s = (sel >> (8 * k)) as u8;
        let byte = match s {
            0..=7 => (data >> (8 * s)) as u8,
            8 => {
                if data >> 15 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            9 => {
                if data >> 31 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            10 => {
                if data >> 47 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            11 => {
                if data >> 63 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        };
        out |= (byte as u32) << (8 * k);
    }
    out
}
