// Corpus for tests/it/emu_decode_llvm.rs: one line per instruction form the software
// device supports (gfx1100, wave32), in LLVM's assembler syntax. The test
// assembles it with llvm-mc and checks that emu's decoder names every
// encoding as llvm-mc does. Operands are arbitrary.
s_add_u32 s1, s2, s3
s_sub_u32 s1, s2, s3
s_add_i32 s1, s2, s3
s_sub_i32 s1, s2, s3
s_addc_u32 s1, s2, s3
s_subb_u32 s1, s2, s3
s_min_i32 s1, s2, s3
s_min_u32 s1, s2, s3
s_max_i32 s1, s2, s3
s_max_u32 s1, s2, s3
s_lshl_b32 s1, s2, s3
s_lshl_b64 s[2:3], s[4:5], s3
s_lshr_b32 s1, s2, s3
s_lshr_b64 s[2:3], s[4:5], s3
s_ashr_i32 s1, s2, s3
s_ashr_i64 s[2:3], s[4:5], s3
s_lshl1_add_u32 s1, s2, s3
s_lshl2_add_u32 s1, s2, s3
s_lshl3_add_u32 s1, s2, s3
s_lshl4_add_u32 s1, s2, s3
s_pack_ll_b32_b16 s1, s2, s3
s_pack_lh_b32_b16 s1, s2, s3
s_pack_hh_b32_b16 s1, s2, s3
s_mul_hi_u32 s1, s2, s3
s_mul_hi_i32 s1, s2, s3
s_and_b32 s1, s2, s3
s_and_b64 s[2:3], s[4:5], s[6:7]
s_or_b32 s1, s2, s3
s_or_b64 s[2:3], s[4:5], s[6:7]
s_xor_b32 s1, s2, s3
s_xor_b64 s[2:3], s[4:5], s[6:7]
s_nand_b32 s1, s2, s3
s_nand_b64 s[2:3], s[4:5], s[6:7]
s_nor_b32 s1, s2, s3
s_nor_b64 s[2:3], s[4:5], s[6:7]
s_xnor_b32 s1, s2, s3
s_xnor_b64 s[2:3], s[4:5], s[6:7]
s_and_not1_b32 s1, s2, s3
s_and_not1_b64 s[2:3], s[4:5], s[6:7]
s_or_not1_b32 s1, s2, s3
s_or_not1_b64 s[2:3], s[4:5], s[6:7]
s_bfe_u32 s1, s2, s3
s_bfe_i32 s1, s2, s3
s_bfe_u64 s[2:3], s[4:5], s3
s_bfe_i64 s[2:3], s[4:5], s3
s_bfm_b32 s1, s2, s3
s_bfm_b64 s[2:3], s2, s3
s_mul_i32 s1, s2, s3
s_absdiff_i32 s1, s2, s3
s_cselect_b32 s1, s2, s3
s_cselect_b64 s[2:3], s[4:5], s[6:7]
s_movk_i32 s1, 0x1234
s_version 0x1234
s_cmovk_i32 s1, 0x1234
s_cmpk_eq_i32 s1, 0x1234
s_cmpk_lg_i32 s1, 0x1234
s_cmpk_gt_i32 s1, 0x1234
s_cmpk_ge_i32 s1, 0x1234
s_cmpk_lt_i32 s1, 0x1234
s_cmpk_le_i32 s1, 0x1234
s_cmpk_eq_u32 s1, 0x1234
s_cmpk_lg_u32 s1, 0x1234
s_cmpk_gt_u32 s1, 0x1234
s_cmpk_ge_u32 s1, 0x1234
s_cmpk_lt_u32 s1, 0x1234
s_cmpk_le_u32 s1, 0x1234
s_addk_i32 s1, 0x1234
s_mulk_i32 s1, 0x1234
s_waitcnt_vscnt null, 0x0
s_waitcnt_vmcnt null, 0x0
s_waitcnt_expcnt null, 0x0
s_waitcnt_lgkmcnt null, 0x0
s_mov_b32 s1, s2
s_mov_b64 s[2:3], s[4:5]
s_cmov_b32 s1, s2
s_cmov_b64 s[2:3], s[4:5]
s_not_b32 s1, s2
s_not_b64 s[2:3], s[4:5]
s_brev_b32 s1, s2
s_brev_b64 s[2:3], s[4:5]
s_bcnt0_i32_b32 s1, s2
s_bcnt0_i32_b64 s1, s[4:5]
s_bcnt1_i32_b32 s1, s2
s_bcnt1_i32_b64 s1, s[4:5]
s_ctz_i32_b32 s1, s2
s_ctz_i32_b64 s1, s[4:5]
s_clz_i32_u32 s1, s2
s_clz_i32_u64 s1, s[4:5]
s_cls_i32 s1, s2
s_cls_i32_i64 s1, s[4:5]
s_sext_i32_i8 s1, s2
s_sext_i32_i16 s1, s2
s_bitset0_b32 s1, s2
s_bitset0_b64 s[2:3], s4
s_bitset1_b32 s1, s2
s_bitset1_b64 s[2:3], s4
s_abs_i32 s1, s2
s_getpc_b64 s[2:3]
s_setpc_b64 s[2:3]
s_swappc_b64 s[2:3], s[4:5]
s_and_saveexec_b32 s1, s2
s_and_saveexec_b64 s[2:3], s[4:5]
s_or_saveexec_b32 s1, s2
s_or_saveexec_b64 s[2:3], s[4:5]
s_xor_saveexec_b32 s1, s2
s_xor_saveexec_b64 s[2:3], s[4:5]
s_nand_saveexec_b32 s1, s2
s_nand_saveexec_b64 s[2:3], s[4:5]
s_nor_saveexec_b32 s1, s2
s_nor_saveexec_b64 s[2:3], s[4:5]
s_xnor_saveexec_b32 s1, s2
s_xnor_saveexec_b64 s[2:3], s[4:5]
s_and_not0_saveexec_b32 s1, s2
s_and_not0_saveexec_b64 s[2:3], s[4:5]
s_or_not0_saveexec_b32 s1, s2
s_or_not0_saveexec_b64 s[2:3], s[4:5]
s_and_not1_saveexec_b32 s1, s2
s_and_not1_saveexec_b64 s[2:3], s[4:5]
s_or_not1_saveexec_b32 s1, s2
s_or_not1_saveexec_b64 s[2:3], s[4:5]
s_and_not0_wrexec_b32 s1, s2
s_and_not0_wrexec_b64 s[2:3], s[4:5]
s_and_not1_wrexec_b32 s1, s2
s_and_not1_wrexec_b64 s[2:3], s[4:5]
s_cmp_eq_i32 s1, s2
s_cmp_lg_i32 s1, s2
s_cmp_gt_i32 s1, s2
s_cmp_ge_i32 s1, s2
s_cmp_lt_i32 s1, s2
s_cmp_le_i32 s1, s2
s_cmp_eq_u32 s1, s2
s_cmp_lg_u32 s1, s2
s_cmp_gt_u32 s1, s2
s_cmp_ge_u32 s1, s2
s_cmp_lt_u32 s1, s2
s_cmp_le_u32 s1, s2
s_bitcmp0_b32 s1, s2
s_bitcmp1_b32 s1, s2
s_bitcmp0_b64 s[2:3], s2
s_bitcmp1_b64 s[2:3], s2
s_cmp_eq_u64 s[2:3], s[4:5]
s_cmp_lg_u64 s[2:3], s[4:5]
s_nop 0x3
s_endpgm
s_branch 0x10
s_cbranch_scc0 0x10
s_cbranch_scc1 0x10
s_cbranch_vccz 0x10
s_cbranch_vccnz 0x10
s_cbranch_execz 0x10
s_cbranch_execnz 0x10
s_cbranch_cdbgsys 0x10
s_cbranch_cdbguser 0x10
s_cbranch_cdbgsys_or_user 0x10
s_cbranch_cdbgsys_and_user 0x10
s_endpgm_saved
s_endpgm_ordered_ps_done
s_wakeup
s_sendmsghalt sendmsg(MSG_DEALLOC_VGPRS)
s_incperflevel 3
s_decperflevel 2
s_ttracedata
s_ttracedata_imm 0x5
s_wait_event 0x1
s_getreg_b32 s1, hwreg(HW_REG_MODE, 4, 8)
s_getreg_b32 s1, hwreg(HW_REG_HW_ID1)
s_getreg_b32 s1, hwreg(40, 0, 3)
s_setreg_b32 hwreg(HW_REG_TRAPSTS), s3
s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), m0
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0x1234
s_call_b64 s[30:31], 4
s_movrels_b32 s2, s4
s_movrels_b64 s[2:3], s[4:5]
s_movreld_b32 s2, s4
s_movreld_b64 s[2:3], s[4:5]
s_movrelsd_2_b32 s2, s4
s_movreld_b32 s2, 5
s_movreld_b32 s2, -16
s_movreld_b32 s2, 0.5
s_movreld_b32 s2, 0x12345678
s_movreld_b32 s2, vcc_lo
s_movreld_b32 s2, m0
s_movreld_b32 s2, src_scc
s_movreld_b64 s[2:3], 64
s_movreld_b64 s[2:3], -1.0
s_movreld_b64 s[2:3], 0x12345678
s_movreld_b64 s[2:3], vcc
s_movreld_b64 s[2:3], 0.15915494309189532
s_mov_b64 s[2:3], 0.15915494309189532
s_movrelsd_2_b32 s2, 5
s_movrelsd_2_b32 s2, 4.0
s_movrelsd_2_b32 s2, 0x12345678
s_movrelsd_2_b32 s2, vcc_lo
s_barrier
s_waitcnt 0x0
s_sethalt 0x0
s_sleep 0x1
s_setprio 0x1
s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)
s_trap 0x2
s_icache_inv
s_code_end
s_clause 0x3
s_delay_alu instid0(VALU_DEP_1)
s_waitcnt_depctr 0xfffe
s_wait_idle
s_set_inst_prefetch_distance 0x1
s_round_mode 0x1
s_denorm_mode 0x1
s_load_b32 s1, s[2:3], 0x10
s_load_b64 s[4:5], s[2:3], 0x10
s_load_b128 s[4:7], s[2:3], 0x10
s_load_b256 s[4:11], s[2:3], 0x10
s_load_b512 s[4:19], s[2:3], 0x10
s_load_b32 s1, s[2:3], s4 offset:0x10
s_dcache_inv
s_gl1_inv
v_nop
v_mov_b32 v1, v2
v_readfirstlane_b32 s1, v2
v_not_b32 v1, v2
v_bfrev_b32 v1, v2
v_clz_i32_u32 v1, v2
v_ctz_i32_b32 v1, v2
v_cls_i32 v1, v2
v_cndmask_b32 v1, v2, v3, vcc_lo
v_add_nc_u32 v1, v2, v3
v_sub_nc_u32 v1, v2, v3
v_subrev_nc_u32 v1, v2, v3
v_add_co_ci_u32 v1, vcc_lo, v2, v3, vcc_lo
v_sub_co_ci_u32 v1, vcc_lo, v2, v3, vcc_lo
v_subrev_co_ci_u32 v1, vcc_lo, v2, v3, vcc_lo
v_mul_i32_i24 v1, v2, v3
v_mul_hi_i32_i24 v1, v2, v3
v_mul_u32_u24 v1, v2, v3
v_mul_hi_u32_u24 v1, v2, v3
v_min_i32 v1, v2, v3
v_max_i32 v1, v2, v3
v_min_u32 v1, v2, v3
v_max_u32 v1, v2, v3
v_lshrrev_b32 v1, v2, v3
v_ashrrev_i32 v1, v2, v3
v_lshlrev_b32 v1, v2, v3
v_and_b32 v1, v2, v3
v_or_b32 v1, v2, v3
v_xor_b32 v1, v2, v3
v_xnor_b32 v1, v2, v3
v_add_co_u32 v1, s2, v2, v3
v_sub_co_u32 v1, s2, v2, v3
v_subrev_co_u32 v1, s2, v2, v3
v_mad_u64_u32 v[1:2], s2, v3, v4, v[5:6]
v_mad_i64_i32 v[1:2], s2, v3, v4, v[5:6]
v_lshl_add_u32 v1, v2, v3, v4
v_add_lshl_u32 v1, v2, v3, v4
v_lshl_or_b32 v1, v2, v3, v4
v_and_or_b32 v1, v2, v3, v4
v_or3_b32 v1, v2, v3, v4
v_xor3_b32 v1, v2, v3, v4
v_add3_u32 v1, v2, v3, v4
v_xad_u32 v1, v2, v3, v4
v_cvt_f32_ubyte0 v1, v2
v_cvt_f32_ubyte1 v1, s2
v_cvt_f32_ubyte2_e64 v1, v2
v_cvt_f32_ubyte3 v1, 0x12345678
v_bfe_u32 v1, v2, v3, v4
v_bfe_i32 v1, v2, v3, v4
v_bfi_b32 v1, v2, v3, v4
v_alignbit_b32 v1, v2, v3, v4
v_alignbyte_b32 v1, v2, v3, v4
v_perm_b32 v1, v2, v3, v4
v_mad_u32_u24 v1, v2, v3, v4
v_mad_i32_i24 v1, v2, v3, v4
v_min3_i32 v1, v2, v3, v4
v_min3_u32 v1, v2, v3, v4
v_max3_i32 v1, v2, v3, v4
v_max3_u32 v1, v2, v3, v4
v_med3_i32 v1, v2, v3, v4
v_med3_u32 v1, v2, v3, v4
v_mul_lo_u32 v1, v2, v3
v_mul_hi_u32 v1, v2, v3
v_mul_hi_i32 v1, v2, v3
v_lshlrev_b64 v[1:2], v3, v[4:5]
v_lshrrev_b64 v[1:2], v3, v[4:5]
v_ashrrev_i64 v[1:2], v3, v[4:5]
v_readlane_b32 s1, v2, s3
v_writelane_b32 v1, s2, s3
v_bcnt_u32_b32 v1, v2, v3
v_mbcnt_lo_u32_b32 v1, v2, v3
v_mbcnt_hi_u32_b32 v1, v2, v3
v_bfm_b32 v1, v2, v3
v_add_nc_u32_e64 v1, v2, v3
v_add_co_ci_u32_e64 v1, s2, v2, v3, s4
v_mov_b32_e64 v1, v2
v_cmp_lt_u32 vcc_lo, v1, v2
v_cmp_lt_u32_e64 s2, v1, v2
v_cmpx_lt_u32 v1, v2
v_cmpx_lt_u32_e64 v1, v2
v_dual_mov_b32 v1, v2 :: v_dual_mov_b32 v4, v3
v_dual_cndmask_b32 v1, v2, v3 :: v_dual_lshlrev_b32 v4, v5, v6
v_dual_mov_b32 v1, v2 :: v_dual_and_b32 v4, v5, v6
v_dual_mov_b32 v1, 0x1234 :: v_dual_and_b32 v4, 0x1234, v6
v_cndmask_b32_e64 v1, v2, v3, s4
v_sub_nc_u32_e64 v1, v2, v3
v_subrev_nc_u32_e64 v1, v2, v3
v_mul_i32_i24_e64 v1, v2, v3
v_mul_hi_i32_i24_e64 v1, v2, v3
v_mul_u32_u24_e64 v1, v2, v3
v_mul_hi_u32_u24_e64 v1, v2, v3
v_min_i32_e64 v1, v2, v3
v_max_i32_e64 v1, v2, v3
v_min_u32_e64 v1, v2, v3
v_max_u32_e64 v1, v2, v3
v_lshrrev_b32_e64 v1, v2, v3
v_ashrrev_i32_e64 v1, v2, v3
v_lshlrev_b32_e64 v1, v2, v3
v_and_b32_e64 v1, v2, v3
v_or_b32_e64 v1, v2, v3
v_xor_b32_e64 v1, v2, v3
v_xnor_b32_e64 v1, v2, v3
v_sub_co_ci_u32_e64 v1, s2, v2, v3, s4
v_subrev_co_ci_u32_e64 v1, s2, v2, v3, s4
v_not_b32_e64 v1, v2
v_bfrev_b32_e64 v1, v2
v_clz_i32_u32_e64 v1, v2
v_ctz_i32_b32_e64 v1, v2
v_cls_i32_e64 v1, v2
v_nop_e64
v_add_nc_u32 v1, 0x12345678, v3
s_add_u32 s1, 0x12345678, s3
v_lshl_add_u32 v1, v2, 0x1234, v4
s_and_b64 s[2:3], -1, s[4:5]
v_cmp_f_i32 vcc_lo, v1, v2
v_cmp_f_i32_e64 s4, v1, v2
v_cmpx_f_i32 v1, v2
v_cmpx_f_i32_e64 v1, v2
v_cmp_lt_i32 vcc_lo, v1, v2
v_cmp_lt_i32_e64 s4, v1, v2
v_cmpx_lt_i32 v1, v2
v_cmpx_lt_i32_e64 v1, v2
v_cmp_eq_i32 vcc_lo, v1, v2
v_cmp_eq_i32_e64 s4, v1, v2
v_cmpx_eq_i32 v1, v2
v_cmpx_eq_i32_e64 v1, v2
v_cmp_le_i32 vcc_lo, v1, v2
v_cmp_le_i32_e64 s4, v1, v2
v_cmpx_le_i32 v1, v2
v_cmpx_le_i32_e64 v1, v2
v_cmp_gt_i32 vcc_lo, v1, v2
v_cmp_gt_i32_e64 s4, v1, v2
v_cmpx_gt_i32 v1, v2
v_cmpx_gt_i32_e64 v1, v2
v_cmp_ne_i32 vcc_lo, v1, v2
v_cmp_ne_i32_e64 s4, v1, v2
v_cmpx_ne_i32 v1, v2
v_cmpx_ne_i32_e64 v1, v2
v_cmp_ge_i32 vcc_lo, v1, v2
v_cmp_ge_i32_e64 s4, v1, v2
v_cmpx_ge_i32 v1, v2
v_cmpx_ge_i32_e64 v1, v2
v_cmp_t_i32 vcc_lo, v1, v2
v_cmp_t_i32_e64 s4, v1, v2
v_cmpx_t_i32 v1, v2
v_cmpx_t_i32_e64 v1, v2
v_cmp_f_u32 vcc_lo, v1, v2
v_cmp_f_u32_e64 s4, v1, v2
v_cmpx_f_u32 v1, v2
v_cmpx_f_u32_e64 v1, v2
v_cmp_lt_u32_e64 s4, v1, v2
v_cmp_eq_u32 vcc_lo, v1, v2
v_cmp_eq_u32_e64 s4, v1, v2
v_cmpx_eq_u32 v1, v2
v_cmpx_eq_u32_e64 v1, v2
v_cmp_le_u32 vcc_lo, v1, v2
v_cmp_le_u32_e64 s4, v1, v2
v_cmpx_le_u32 v1, v2
v_cmpx_le_u32_e64 v1, v2
v_cmp_gt_u32 vcc_lo, v1, v2
v_cmp_gt_u32_e64 s4, v1, v2
v_cmpx_gt_u32 v1, v2
v_cmpx_gt_u32_e64 v1, v2
v_cmp_ne_u32 vcc_lo, v1, v2
v_cmp_ne_u32_e64 s4, v1, v2
v_cmpx_ne_u32 v1, v2
v_cmpx_ne_u32_e64 v1, v2
v_cmp_ge_u32 vcc_lo, v1, v2
v_cmp_ge_u32_e64 s4, v1, v2
v_cmpx_ge_u32 v1, v2
v_cmpx_ge_u32_e64 v1, v2
v_cmp_t_u32 vcc_lo, v1, v2
v_cmp_t_u32_e64 s4, v1, v2
v_cmpx_t_u32 v1, v2
v_cmpx_t_u32_e64 v1, v2
v_cmp_f_i64 vcc_lo, v[1:2], v[3:4]
v_cmp_f_i64_e64 s4, v[1:2], v[3:4]
v_cmpx_f_i64 v[1:2], v[3:4]
v_cmpx_f_i64_e64 v[1:2], v[3:4]
v_cmp_lt_i64 vcc_lo, v[1:2], v[3:4]
v_cmp_lt_i64_e64 s4, v[1:2], v[3:4]
v_cmpx_lt_i64 v[1:2], v[3:4]
v_cmpx_lt_i64_e64 v[1:2], v[3:4]
v_cmp_eq_i64 vcc_lo, v[1:2], v[3:4]
v_cmp_eq_i64_e64 s4, v[1:2], v[3:4]
v_cmpx_eq_i64 v[1:2], v[3:4]
v_cmpx_eq_i64_e64 v[1:2], v[3:4]
v_cmp_le_i64 vcc_lo, v[1:2], v[3:4]
v_cmp_le_i64_e64 s4, v[1:2], v[3:4]
v_cmpx_le_i64 v[1:2], v[3:4]
v_cmpx_le_i64_e64 v[1:2], v[3:4]
v_cmp_gt_i64 vcc_lo, v[1:2], v[3:4]
v_cmp_gt_i64_e64 s4, v[1:2], v[3:4]
v_cmpx_gt_i64 v[1:2], v[3:4]
v_cmpx_gt_i64_e64 v[1:2], v[3:4]
v_cmp_ne_i64 vcc_lo, v[1:2], v[3:4]
v_cmp_ne_i64_e64 s4, v[1:2], v[3:4]
v_cmpx_ne_i64 v[1:2], v[3:4]
v_cmpx_ne_i64_e64 v[1:2], v[3:4]
v_cmp_ge_i64 vcc_lo, v[1:2], v[3:4]
v_cmp_ge_i64_e64 s4, v[1:2], v[3:4]
v_cmpx_ge_i64 v[1:2], v[3:4]
v_cmpx_ge_i64_e64 v[1:2], v[3:4]
v_cmp_t_i64 vcc_lo, v[1:2], v[3:4]
v_cmp_t_i64_e64 s4, v[1:2], v[3:4]
v_cmpx_t_i64 v[1:2], v[3:4]
v_cmpx_t_i64_e64 v[1:2], v[3:4]
v_cmp_f_u64 vcc_lo, v[1:2], v[3:4]
v_cmp_f_u64_e64 s4, v[1:2], v[3:4]
v_cmpx_f_u64 v[1:2], v[3:4]
v_cmpx_f_u64_e64 v[1:2], v[3:4]
v_cmp_lt_u64 vcc_lo, v[1:2], v[3:4]
v_cmp_lt_u64_e64 s4, v[1:2], v[3:4]
v_cmpx_lt_u64 v[1:2], v[3:4]
v_cmpx_lt_u64_e64 v[1:2], v[3:4]
v_cmp_eq_u64 vcc_lo, v[1:2], v[3:4]
v_cmp_eq_u64_e64 s4, v[1:2], v[3:4]
v_cmpx_eq_u64 v[1:2], v[3:4]
v_cmpx_eq_u64_e64 v[1:2], v[3:4]
v_cmp_le_u64 vcc_lo, v[1:2], v[3:4]
v_cmp_le_u64_e64 s4, v[1:2], v[3:4]
v_cmpx_le_u64 v[1:2], v[3:4]
v_cmpx_le_u64_e64 v[1:2], v[3:4]
v_cmp_gt_u64 vcc_lo, v[1:2], v[3:4]
v_cmp_gt_u64_e64 s4, v[1:2], v[3:4]
v_cmpx_gt_u64 v[1:2], v[3:4]
v_cmpx_gt_u64_e64 v[1:2], v[3:4]
v_cmp_ne_u64 vcc_lo, v[1:2], v[3:4]
v_cmp_ne_u64_e64 s4, v[1:2], v[3:4]
v_cmpx_ne_u64 v[1:2], v[3:4]
v_cmpx_ne_u64_e64 v[1:2], v[3:4]
v_cmp_ge_u64 vcc_lo, v[1:2], v[3:4]
v_cmp_ge_u64_e64 s4, v[1:2], v[3:4]
v_cmpx_ge_u64 v[1:2], v[3:4]
v_cmpx_ge_u64_e64 v[1:2], v[3:4]
v_cmp_t_u64 vcc_lo, v[1:2], v[3:4]
v_cmp_t_u64_e64 s4, v[1:2], v[3:4]
v_cmpx_t_u64 v[1:2], v[3:4]
v_cmpx_t_u64_e64 v[1:2], v[3:4]
ds_add_u32 v1, v2 offset:4
ds_add_rtn_u32 v5, v1, v2 offset:4
ds_add_u64 v1, v[2:3]
ds_add_rtn_u64 v[5:6], v1, v[2:3]
ds_xor_rtn_b64 v[5:6], v1, v[2:3] offset:65528
ds_mskor_b32 v1, v2, v3
ds_mskor_rtn_b32 v5, v1, v2, v3
ds_mskor_rtn_b64 v[5:6], v1, v[2:3], v[3:4]
ds_cmpstore_b32 v1, v2, v3
ds_cmpstore_rtn_b32 v5, v1, v2, v3
ds_cmpstore_b64 v1, v[2:3], v[3:4]
ds_cmpstore_rtn_b64 v[5:6], v1, v[2:3], v[3:4]
ds_storexchg_rtn_b32 v5, v1, v2
ds_storexchg_rtn_b64 v[5:6], v1, v[2:3]
ds_wrap_rtn_b32 v5, v1, v2, v3 offset:8
ds_condxchg32_rtn_b64 v[5:6], v1, v[2:3] offset:4
ds_storexchg_2addr_rtn_b32 v[5:6], v1, v2, v3 offset0:1 offset1:2
ds_storexchg_2addr_stride64_rtn_b32 v[5:6], v1, v2, v3 offset1:3
ds_storexchg_2addr_rtn_b64 v[5:8], v1, v[2:3], v[3:4] offset0:255
ds_storexchg_2addr_stride64_rtn_b64 v[5:8], v1, v[2:3], v[3:4] offset0:1 offset1:2
ds_add_f32 v1, v2 offset:4
ds_add_rtn_f32 v5, v1, v2
ds_min_f32 v1, v2
ds_max_f32 v1, v2 offset:65535
ds_min_rtn_f32 v5, v1, v2
ds_max_rtn_f32 v5, v1, v2
ds_min_f64 v1, v[2:3]
ds_max_f64 v1, v[2:3]
ds_min_rtn_f64 v[5:6], v1, v[2:3]
ds_max_rtn_f64 v[5:6], v1, v[2:3] offset:16
ds_cmpstore_f32 v1, v2, v3
ds_cmpstore_rtn_f32 v5, v1, v2, v3
ds_cmpstore_f64 v1, v[2:3], v[3:4]
ds_cmpstore_rtn_f64 v[5:6], v1, v[2:3], v[3:4] offset:8
ds_store_b8 v1, v2
ds_store_b16 v1, v2
ds_store_b32 v1, v2
ds_store_b64 v1, v[2:3]
ds_store_b96 v1, v[2:4]
ds_store_b128 v1, v[2:5]
ds_store_2addr_b32 v1, v2, v3 offset0:1 offset1:2
ds_store_2addr_b64 v1, v[2:3], v[4:5] offset0:1 offset1:2
ds_store_2addr_stride64_b32 v1, v2, v3 offset0:1 offset1:2
ds_store_2addr_stride64_b64 v1, v[2:3], v[4:5] offset0:1 offset1:2
ds_load_b32 v1, v2
ds_load_b64 v[1:2], v2
ds_load_b96 v[1:3], v2
ds_load_b128 v[1:4], v2
ds_load_u8 v1, v2
ds_load_i8 v1, v2
ds_load_u16 v1, v2
ds_load_i16 v1, v2
ds_load_2addr_b32 v[1:2], v2 offset0:1 offset1:2
ds_load_2addr_b64 v[1:4], v2 offset0:1 offset1:2
ds_load_2addr_stride64_b32 v[1:2], v2 offset0:1 offset1:2
ds_load_2addr_stride64_b64 v[1:4], v2 offset0:1 offset1:2
ds_nop
ds_sub_u32 v1, v2
ds_sub_rtn_u32 v5, v1, v2
ds_sub_u64 v1, v[2:3]
ds_sub_rtn_u64 v[5:6], v1, v[2:3]
ds_rsub_u32 v1, v2
ds_rsub_rtn_u32 v5, v1, v2
ds_rsub_u64 v1, v[2:3]
ds_rsub_rtn_u64 v[5:6], v1, v[2:3]
ds_inc_u32 v1, v2
ds_inc_rtn_u32 v5, v1, v2
ds_inc_u64 v1, v[2:3]
ds_inc_rtn_u64 v[5:6], v1, v[2:3]
ds_dec_u32 v1, v2
ds_dec_rtn_u32 v5, v1, v2
ds_dec_u64 v1, v[2:3]
ds_dec_rtn_u64 v[5:6], v1, v[2:3]
ds_min_i32 v1, v2
ds_min_rtn_i32 v5, v1, v2
ds_min_i64 v1, v[2:3]
ds_min_rtn_i64 v[5:6], v1, v[2:3]
ds_max_i32 v1, v2
ds_max_rtn_i32 v5, v1, v2
ds_max_i64 v1, v[2:3]
ds_max_rtn_i64 v[5:6], v1, v[2:3]
ds_min_u32 v1, v2
ds_min_rtn_u32 v5, v1, v2
ds_min_u64 v1, v[2:3]
ds_min_rtn_u64 v[5:6], v1, v[2:3]
ds_max_u32 v1, v2
ds_max_rtn_u32 v5, v1, v2
ds_max_u64 v1, v[2:3]
ds_max_rtn_u64 v[5:6], v1, v[2:3]
ds_and_b32 v1, v2
ds_and_rtn_b32 v5, v1, v2
ds_and_b64 v1, v[2:3]
ds_and_rtn_b64 v[5:6], v1, v[2:3]
ds_or_b32 v1, v2
ds_or_rtn_b32 v5, v1, v2
ds_or_b64 v1, v[2:3]
ds_or_rtn_b64 v[5:6], v1, v[2:3]
ds_xor_b32 v1, v2
ds_xor_rtn_b32 v5, v1, v2
ds_xor_b64 v1, v[2:3]
ds_xor_rtn_b64 v[5:6], v1, v[2:3]
ds_mskor_b64 v1, v[2:3], v[4:5]
global_load_b32 v1, v[2:3], off
global_load_b64 v[1:2], v[2:3], off offset:-8
global_load_b96 v[1:3], v[2:3], off
global_load_b128 v[1:4], v[2:3], off
global_load_u8 v1, v[2:3], off
global_load_i8 v1, v[2:3], off
global_load_u16 v1, v[2:3], off
global_load_i16 v1, v[2:3], off
global_load_b32 v1, v2, s[4:5] offset:16
global_store_b8 v[2:3], v1, off
global_store_b16 v[2:3], v1, off
global_store_b32 v[2:3], v1, off
global_store_b64 v[2:3], v[4:5], off
global_store_b96 v[2:3], v[4:6], off
global_store_b128 v[2:3], v[4:7], off
global_store_b32 v2, v1, s[4:5] offset:16
flat_load_b32 v1, v[2:3]
flat_load_b64 v[1:2], v[2:3] offset:8
flat_store_b32 v[2:3], v1
flat_store_b64 v[2:3], v[4:5]
flat_load_u8 v1, v[2:3]
flat_load_i8 v1, v[2:3]
flat_load_u16 v1, v[2:3]
flat_load_i16 v1, v[2:3]
flat_load_b96 v[1:3], v[2:3]
flat_load_b128 v[1:4], v[2:3]
flat_store_b8 v[2:3], v1
flat_store_b16 v[2:3], v1
flat_store_b96 v[2:3], v[4:6]
flat_store_b128 v[2:3], v[4:7]
buffer_gl0_inv
buffer_gl1_inv
s_pack_hl_b32_b16 s1, s2, s3
s_bitreplicate_b64_b32 s[2:3], s4
s_quadmask_b32 s1, s2
s_quadmask_b64 s[2:3], s[4:5]
s_wqm_b32 s1, s2
s_wqm_b64 s[2:3], s[4:5]
v_add_nc_i32 v1, v2, v3
v_sub_nc_i32 v1, s2, v3
v_sad_u8 v1, v2, v3, v4
v_sad_hi_u8 v1, v2, v3, v4
v_sad_u16 v1, v2, v3, v4
v_sad_u32 v1, v2, s3, v4
v_msad_u8 v1, v2, v3, v4
v_lerp_u8 v1, v2, v3, v4
v_swap_b32 v1, v2
// 16-bit integer VALU (true16 syntax; the test assembles with +real-true16).
v_add_nc_i16 v1.l, v2.l, v3.l
v_add_nc_i16 v1.h, v2.h, v3.l
v_add_nc_i16 v200.l, s2, v3.h
v_add_nc_i16 v1.l, 0x1234, v3.l
v_add_nc_i16 v1.h, -1, 5
v_add_nc_i16 v1.l, v2.h, v3.h clamp
v_add_nc_u16 v1.l, v2.l, v3.l
v_add_nc_u16 v1.h, v2.h, v3.l
v_add_nc_u16 v200.l, s2, v3.h
v_add_nc_u16 v1.l, 0x1234, v3.l
v_add_nc_u16 v1.h, -1, 5
v_add_nc_u16 v1.l, v2.h, v3.h clamp
v_sub_nc_i16 v1.l, v2.l, v3.l
v_sub_nc_i16 v1.h, v2.h, v3.l
v_sub_nc_i16 v200.l, s2, v3.h
v_sub_nc_i16 v1.l, 0x1234, v3.l
v_sub_nc_i16 v1.h, -1, 5
v_sub_nc_i16 v1.l, v2.h, v3.h clamp
v_sub_nc_u16 v1.l, v2.l, v3.l
v_sub_nc_u16 v1.h, v2.h, v3.l
v_sub_nc_u16 v200.l, s2, v3.h
v_sub_nc_u16 v1.l, 0x1234, v3.l
v_sub_nc_u16 v1.h, -1, 5
v_sub_nc_u16 v1.l, v2.h, v3.h clamp
v_mul_lo_u16 v1.l, v2.l, v3.l
v_mul_lo_u16 v1.h, v2.h, v3.l
v_mul_lo_u16 v200.l, s2, v3.h
v_mul_lo_u16 v1.l, 0x1234, v3.l
v_mul_lo_u16 v1.h, -1, 5
v_lshlrev_b16 v1.l, v2.l, v3.l
v_lshlrev_b16 v1.h, v2.h, v3.l
v_lshlrev_b16 v200.l, s2, v3.h
v_lshlrev_b16 v1.l, 0x1234, v3.l
v_lshlrev_b16 v1.h, -1, 5
v_lshrrev_b16 v1.l, v2.l, v3.l
v_lshrrev_b16 v1.h, v2.h, v3.l
v_lshrrev_b16 v200.l, s2, v3.h
v_lshrrev_b16 v1.l, 0x1234, v3.l
v_lshrrev_b16 v1.h, -1, 5
v_ashrrev_i16 v1.l, v2.l, v3.l
v_ashrrev_i16 v1.h, v2.h, v3.l
v_ashrrev_i16 v200.l, s2, v3.h
v_ashrrev_i16 v1.l, 0x1234, v3.l
v_ashrrev_i16 v1.h, -1, 5
v_max_i16 v1.l, v2.l, v3.l
v_max_i16 v1.h, v2.h, v3.l
v_max_i16 v200.l, s2, v3.h
v_max_i16 v1.l, 0x1234, v3.l
v_max_i16 v1.h, -1, 5
v_max_u16 v1.l, v2.l, v3.l
v_max_u16 v1.h, v2.h, v3.l
v_max_u16 v200.l, s2, v3.h
v_max_u16 v1.l, 0x1234, v3.l
v_max_u16 v1.h, -1, 5
v_min_i16 v1.l, v2.l, v3.l
v_min_i16 v1.h, v2.h, v3.l
v_min_i16 v200.l, s2, v3.h
v_min_i16 v1.l, 0x1234, v3.l
v_min_i16 v1.h, -1, 5
v_min_u16 v1.l, v2.l, v3.l
v_min_u16 v1.h, v2.h, v3.l
v_min_u16 v200.l, s2, v3.h
v_min_u16 v1.l, 0x1234, v3.l
v_min_u16 v1.h, -1, 5
v_and_b16 v1.l, v2.l, v3.l
v_and_b16 v1.h, v2.h, v3.l
v_and_b16 v200.l, s2, v3.h
v_and_b16 v1.l, 0x1234, v3.l
v_and_b16 v1.h, -1, 5
v_or_b16 v1.l, v2.l, v3.l
v_or_b16 v1.h, v2.h, v3.l
v_or_b16 v200.l, s2, v3.h
v_or_b16 v1.l, 0x1234, v3.l
v_or_b16 v1.h, -1, 5
v_xor_b16 v1.l, v2.l, v3.l
v_xor_b16 v1.h, v2.h, v3.l
v_xor_b16 v200.l, s2, v3.h
v_xor_b16 v1.l, 0x1234, v3.l
v_xor_b16 v1.h, -1, 5
v_mad_i16 v1.l, v2.l, v3.l, v4.l
v_mad_i16 v1.h, v2.h, v3.l, v4.h clamp
v_mad_i16 v1.l, s2, v3.h, 0x8000
v_mad_u16 v1.l, v2.l, v3.l, v4.l
v_mad_u16 v1.h, v2.h, v3.l, v4.h clamp
v_mad_u16 v1.l, s2, v3.h, 0x8000
v_max3_i16 v1.l, v2.l, v3.l, v4.l
v_max3_i16 v1.h, v2.h, v3.l, v4.h clamp
v_max3_i16 v1.l, s2, v3.h, 0x8000
v_max3_u16 v1.l, v2.l, v3.l, v4.l
v_max3_u16 v1.h, v2.h, v3.l, v4.h clamp
v_max3_u16 v1.l, s2, v3.h, 0x8000
v_min3_i16 v1.l, v2.l, v3.l, v4.l
v_min3_i16 v1.h, v2.h, v3.l, v4.h clamp
v_min3_i16 v1.l, s2, v3.h, 0x8000
v_min3_u16 v1.l, v2.l, v3.l, v4.l
v_min3_u16 v1.h, v2.h, v3.l, v4.h clamp
v_min3_u16 v1.l, s2, v3.h, 0x8000
v_med3_i16 v1.l, v2.l, v3.l, v4.l
v_med3_i16 v1.h, v2.h, v3.l, v4.h clamp
v_med3_i16 v1.l, s2, v3.h, 0x8000
v_med3_u16 v1.l, v2.l, v3.l, v4.l
v_med3_u16 v1.h, v2.h, v3.l, v4.h clamp
v_med3_u16 v1.l, s2, v3.h, 0x8000
v_mad_i32_i16 v1, v2.l, v3.l, v4
v_mad_i32_i16 v1, v2.h, v3.h, s4 clamp
v_mad_i32_i16 v1, -2, v3.h, 0x12345678
v_mad_u32_u16 v1, v2.l, v3.l, v4
v_mad_u32_u16 v1, v2.h, v3.h, s4 clamp
v_mad_u32_u16 v1, -2, v3.h, 0x12345678
v_cndmask_b16 v1.l, v2.l, v3.l, s4
v_cndmask_b16 v1.h, v2.h, v3.l, vcc_lo
v_cndmask_b16 v1.l, s2, v3.h, s6
v_cvt_pk_i16_i32 v1, v2, v3
v_cvt_pk_i16_i32 v1, s2, 0x12345
v_cvt_pk_u16_u32 v1, v2, v3
v_cvt_pk_u16_u32 v1, s2, 0x12345
v_mov_b16 v1.l, v2.l
v_mov_b16 v1.h, v2.h
v_mov_b16 v127.h, s3
v_mov_b16 v1.l, 0x1234
v_mov_b16_e64 v1.h, v2.l
v_mov_b16_e64 v200.l, v201.h
v_not_b16 v1.l, v2.l
v_not_b16 v1.h, v2.h
v_not_b16 v127.h, s3
v_not_b16 v1.l, 0x1234
v_not_b16_e64 v1.h, v2.l
v_not_b16_e64 v200.l, v201.h
v_cvt_i32_i16 v1, v2.l
v_cvt_i32_i16 v1, v2.h
v_cvt_i32_i16 v1, s2
v_cvt_i32_i16_e64 v1, v200.h
v_cvt_u32_u16 v1, v2.l
v_cvt_u32_u16 v1, v2.h
v_cvt_u32_u16 v1, s2
v_cvt_u32_u16_e64 v1, v200.h
v_sat_pk_u8_i16 v1.l, v2
v_sat_pk_u8_i16 v1.h, s2
v_sat_pk_u8_i16_e64 v1.h, v2
v_sat_pk_u8_i16_e64 v200.l, 0x12345
v_swap_b16 v1.l, v2.h
v_swap_b16 v1.h, v2.h
v_swap_b16 v127.l, v126.l
v_cmp_eq_i16 vcc_lo, v1.l, v2.h
v_cmp_eq_i16_e64 s5, v1.h, v2.l
v_cmpx_eq_i16 v1.h, v2.l
v_cmpx_eq_i16_e64 s1, 0x1234
v_cmp_ne_i16 vcc_lo, v1.l, v2.h
v_cmp_ne_i16_e64 s5, v1.h, v2.l
v_cmpx_ne_i16 v1.h, v2.l
v_cmpx_ne_i16_e64 s1, 0x1234
v_cmp_lt_i16 vcc_lo, v1.l, v2.h
v_cmp_lt_i16_e64 s5, v1.h, v2.l
v_cmpx_lt_i16 v1.h, v2.l
v_cmpx_lt_i16_e64 s1, 0x1234
v_cmp_le_i16 vcc_lo, v1.l, v2.h
v_cmp_le_i16_e64 s5, v1.h, v2.l
v_cmpx_le_i16 v1.h, v2.l
v_cmpx_le_i16_e64 s1, 0x1234
v_cmp_gt_i16 vcc_lo, v1.l, v2.h
v_cmp_gt_i16_e64 s5, v1.h, v2.l
v_cmpx_gt_i16 v1.h, v2.l
v_cmpx_gt_i16_e64 s1, 0x1234
v_cmp_ge_i16 vcc_lo, v1.l, v2.h
v_cmp_ge_i16_e64 s5, v1.h, v2.l
v_cmpx_ge_i16 v1.h, v2.l
v_cmpx_ge_i16_e64 s1, 0x1234
v_cmp_eq_u16 vcc_lo, v1.l, v2.h
v_cmp_eq_u16_e64 s5, v1.h, v2.l
v_cmpx_eq_u16 v1.h, v2.l
v_cmpx_eq_u16_e64 s1, 0x1234
v_cmp_ne_u16 vcc_lo, v1.l, v2.h
v_cmp_ne_u16_e64 s5, v1.h, v2.l
v_cmpx_ne_u16 v1.h, v2.l
v_cmpx_ne_u16_e64 s1, 0x1234
v_cmp_lt_u16 vcc_lo, v1.l, v2.h
v_cmp_lt_u16_e64 s5, v1.h, v2.l
v_cmpx_lt_u16 v1.h, v2.l
v_cmpx_lt_u16_e64 s1, 0x1234
v_cmp_le_u16 vcc_lo, v1.l, v2.h
v_cmp_le_u16_e64 s5, v1.h, v2.l
v_cmpx_le_u16 v1.h, v2.l
v_cmpx_le_u16_e64 s1, 0x1234
v_cmp_gt_u16 vcc_lo, v1.l, v2.h
v_cmp_gt_u16_e64 s5, v1.h, v2.l
v_cmpx_gt_u16 v1.h, v2.l
v_cmpx_gt_u16_e64 s1, 0x1234
v_cmp_ge_u16 vcc_lo, v1.l, v2.h
v_cmp_ge_u16_e64 s5, v1.h, v2.l
v_cmpx_ge_u16 v1.h, v2.l
v_cmpx_ge_u16_e64 s1, 0x1234
v_cmp_lt_i16 vcc_lo, -1, v2.l
v_cmp_gt_u16_e64 s6, v200.h, s3
// Packed (VOP3P) integer ops with op_sel / op_sel_hi / clamp, dot products,
// v_maxmin/v_minmax, lane permutes, M0-relative moves and quad SADs.
v_pk_mad_i16 v1, v2, v3, v4
v_pk_mad_i16 v1, v2, v3, v4 op_sel:[1,0,1] op_sel_hi:[0,1,0]
v_pk_mad_u16 v1, v2, v3, v4
v_pk_mad_u16 v1, s2, 5, 0x1234 op_sel_hi:[1,0,1]
v_pk_mul_lo_u16 v1, v2, v3
v_pk_mul_lo_u16 v1, v2, -1 op_sel:[0,1]
v_pk_add_i16 v1, v2, v3
v_pk_add_i16 v1, v2, v3 clamp
v_pk_add_u16 v1, v2, v3 op_sel:[1,0] op_sel_hi:[0,1]
v_pk_add_u16 v1, s2, 5 op_sel:[1,1] op_sel_hi:[0,0] clamp
v_pk_sub_i16 v1, v2, v3 op_sel:[1,1] clamp
v_pk_sub_u16 v1, v2, 0x1234 clamp
v_pk_lshlrev_b16 v1, v2, v3
v_pk_lshrrev_b16 v1, v2, v3 op_sel_hi:[0,1]
v_pk_ashrrev_i16 v1, 4, v3
v_pk_max_i16 v1, v2, v3
v_pk_min_i16 v1, v2, v3 op_sel:[0,1]
v_pk_max_u16 v1, v2, s3
v_pk_min_u16 v1, v2, v3 op_sel_hi:[1,0]
v_dot4_i32_iu8 v1, v2, v3, v4
v_dot4_i32_iu8 v1, v2, v3, v4 neg_lo:[1,1,0]
v_dot4_i32_iu8 v1, s2, 5, 0x12345 neg_lo:[1,0,0] clamp
v_dot4_u32_u8 v1, v2, v3, v4
v_dot4_u32_u8 v1, v2, v3, v4 clamp
v_dot8_i32_iu4 v1, v2, v3, v4 neg_lo:[0,1,0]
v_dot8_u32_u4 v1, v2, v3, v4 clamp
v_wmma_i32_16x16x16_iu8 v[8:15], v[0:3], v[4:7], v[8:15]
v_wmma_i32_16x16x16_iu8 v[16:23], v[0:3], v[4:7], v[8:15] neg_lo:[1,1,0] clamp
v_wmma_i32_16x16x16_iu8 v[8:15], v[0:3], v[0:3], -16 neg_lo:[0,1,0]
v_wmma_i32_16x16x16_iu8 v[248:255], v[0:3], v[4:7], v[248:255]
v_wmma_i32_16x16x16_iu4 v[8:15], v[0:1], v[2:3], v[8:15] neg_lo:[1,0,0]
v_wmma_i32_16x16x16_iu4 v[16:23], v[4:5], v[6:7], 64 clamp
v_maxmin_i32 v1, v2, v3, v4
v_maxmin_u32 v1, s2, 7, v4
v_minmax_i32 v1, v2, -3, 0x12345
v_minmax_u32 v1, v2, v3, v4
v_permlane16_b32 v1, v2, s3, s4
v_permlane16_b32 v1, v2, s3, s4 op_sel:[1,1]
v_permlanex16_b32 v1, v2, s3, s4 op_sel:[1,0]
v_permlanex16_b32 v1, v2, 3, 0x12345678 op_sel:[0,1]
v_permlane64_b32 v1, v2
v_movrels_b32 v1, v2
v_movreld_b32 v1, v2
v_movreld_b32 v1, s2
v_movrelsd_b32 v1, v2
v_movrelsd_2_b32 v1, v2
v_swaprel_b32 v1, v2
v_movrels_b32_e64 v1, v2
v_movreld_b32_e64 v1, 5
v_movrelsd_b32_e64 v1, v2
v_movrelsd_2_b32_e64 v1, v2
v_qsad_pk_u16_u8 v[1:2], v[2:3], v3, v[4:5]
v_qsad_pk_u16_u8 v[1:2], s[2:3], 5, v[4:5]
v_mqsad_pk_u16_u8 v[1:2], v[2:3], v3, v[4:5]
v_mqsad_u32_u8 v[1:4], v[2:3], v3, v[4:7]
