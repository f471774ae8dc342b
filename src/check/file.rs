//! Observation files, `dsxor-observation/1` (docs/src/reference/observation.md): the interchange
//! format for results from anywhere. JSON; 64-bit values and addresses as
//! hex strings; one workgroup, one `ds_xor_rtn_b64` per listed active lane.
//!
//! Fields: `format`, `instruction` (required, fixed); `lds_bytes` (required);
//! `offset` (default 0); `init` and `final` (address → value, absent init
//! qwords are 0, absent final qwords are not claimed); `lanes` (each `wave`,
//! `lane`, `addr`, `data`, `ret`). Optional extensions this version reads:
//! per lane `active` (default true) and `vdst_init` (VDST before, enabling
//! the not-written and inactive-lane checks); top-level `fault` (the device
//! reported a fault; `ret` may then be absent). Unknown fields are kept and
//! written back, never rejected.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value};

use super::{CheckError, FinalView, GroupView, Judge, LaneRef, LaneView, Verdict};
use crate::case::{Case, Observation};
use crate::model::{calc_ds_addr16, policy::LDS_MAX_BYTES_PER_GROUP, validate_case, Policy};

pub const FORMAT: &str = "dsxor-observation/1";
pub const INSTRUCTION: &str = "ds_xor_rtn_b64";

/// A malformed or unreadable observation file (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{path}: cannot read: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{path}: not valid JSON: {error}")]
    Json {
        path: String,
        error: serde_json::Error,
    },
    #[error("{path}: `{field}`: {why}")]
    Field {
        path: String,
        field: String,
        why: String,
    },
}

/// One lane of an observation file.
#[derive(Clone, Debug, PartialEq)]
pub struct FileLane {
    pub wave: u32,
    pub lane: u32,
    /// The ADDR register's value (the effective address adds `offset`).
    pub addr: u32,
    pub data: u64,
    /// VDST after; absent only when the file records a fault.
    pub ret: Option<u64>,
    pub active: bool,
    pub vdst_init: Option<u64>,
    /// Unknown fields, kept.
    pub extra: Map<String, Value>,
}

/// A parsed `dsxor-observation/1` file.
#[derive(Clone, Debug, PartialEq)]
pub struct ObservationFile {
    pub lds_bytes: u32,
    pub offset: u16,
    pub init: BTreeMap<u64, u64>,
    pub lanes: Vec<FileLane>,
    pub final_: BTreeMap<u64, u64>,
    pub fault: Option<String>,
    /// Unknown top-level fields, kept.
    pub extra: Map<String, Value>,
}

/// The file's JSON Schema (`docs/schemas/observation.schema.json`). The
/// file is read by hand (`from_value`, for errors that name the field), not
/// by serde, so the schema is written here beside the reader, from the same
/// constants. It states the form; the reader checks more than a schema can:
/// addresses 8-byte aligned and below `lds_bytes`, values in range, no lane
/// or address listed twice, `ret` present unless `fault` is.
impl schemars::JsonSchema for ObservationFile {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ObservationFile".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let hex = serde_json::json!({
            "type": "string",
            "pattern": "^0[xX][0-9a-fA-F]{1,16}$",
            "description": "0x then 1 to 16 hex digits"
        });
        let qwords = serde_json::json!({
            "type": "object",
            "description": "qword values by LDS byte address (hex keys, 8-byte aligned, below lds_bytes)",
            "propertyNames": { "pattern": "^0[xX][0-9a-fA-F]{1,8}$" },
            "additionalProperties": hex
        });
        schemars::json_schema!({
            "title": "ObservationFile",
            "description": "One workgroup's ds_xor_rtn_b64 observation (dsxor-observation/1), judged by `dsxor check`. Unknown fields are kept.",
            "type": "object",
            "required": ["format", "instruction", "lds_bytes", "lanes"],
            "properties": {
                "format": { "const": FORMAT },
                "instruction": { "const": INSTRUCTION },
                "lds_bytes": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": LDS_MAX_BYTES_PER_GROUP,
                    "multipleOf": 8
                },
                "offset": { "type": "integer", "minimum": 0, "maximum": 65535, "default": 0 },
                "init": qwords,
                "final": qwords,
                "fault": { "type": ["string", "null"] },
                "lanes": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["wave", "lane", "addr", "data"],
                        "properties": {
                            "wave": { "type": "integer", "minimum": 0, "maximum": 1023 },
                            "lane": { "type": "integer", "minimum": 0, "maximum": 63 },
                            "addr": hex,
                            "data": hex,
                            "ret": hex,
                            "active": { "type": "boolean", "default": true },
                            "vdst_init": hex
                        }
                    }
                }
            }
        })
    }
}

const KNOWN_TOP: &[&str] = &[
    "format",
    "instruction",
    "lds_bytes",
    "offset",
    "init",
    "lanes",
    "final",
    "fault",
];
const KNOWN_LANE: &[&str] = &["wave", "lane", "addr", "data", "ret", "active", "vdst_init"];

struct Ctx<'a> {
    path: &'a str,
}

impl Ctx<'_> {
    fn err(&self, field: impl Into<String>, why: impl Into<String>) -> FileError {
        FileError::Field {
            path: self.path.to_string(),
            field: field.into(),
            why: why.into(),
        }
    }

    fn hex(&self, field: &str, v: &Value, max: u64) -> Result<u64, FileError> {
        let Value::String(s) = v else {
            return Err(self.err(
                field,
                format!("expected a hex string such as \"0x1f\", got {v}"),
            ));
        };
        parse_hex(s, max).ok_or_else(|| {
            self.err(
                field,
                format!("\"{s}\" is not a hex string (\"0x\" then 1 to 16 hex digits) of at most {max:#x}"),
            )
        })
    }

    fn uint(&self, field: &str, v: &Value, max: u64) -> Result<u64, FileError> {
        match v.as_u64() {
            Some(n) if n <= max => Ok(n),
            _ => Err(self.err(
                field,
                format!("expected an integer from 0 to {max}, got {v}"),
            )),
        }
    }

    fn map(&self, field: &str, v: &Value, lds_bytes: u32) -> Result<BTreeMap<u64, u64>, FileError> {
        let Value::Object(m) = v else {
            return Err(self.err(
                field,
                format!("expected an object of \"address\": \"value\", got {v}"),
            ));
        };
        let mut out = BTreeMap::new();
        for (k, val) in m {
            let f = format!("{field}.{k}");
            let a = parse_hex(k, u64::from(u32::MAX))
                .ok_or_else(|| self.err(&f, "the key is not a hex address such as \"0x10\""))?;
            if a % 8 != 0 {
                return Err(self.err(&f, "the address is not 8-byte aligned (values are qwords)"));
            }
            if a >= u64::from(lds_bytes) {
                return Err(self.err(&f, format!("the address is past lds_bytes ({lds_bytes})")));
            }
            let value = self.hex(&f, val, u64::MAX)?;
            if out.insert(a, value).is_some() {
                return Err(self.err(&f, "the address is listed twice"));
            }
        }
        Ok(out)
    }
}

/// `0x`-prefixed hex, 1..=16 digits, value ≤ max.
fn parse_hex(s: &str, max: u64) -> Option<u64> {
    let d = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    if d.is_empty() || d.len() > 16 || !d.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(d, 16).ok().filter(|&v| v <= max)
}

fn hex(v: u64) -> Value {
    Value::String(format!("{v:#x}"))
}

impl ObservationFile {
    /// Read and parse a file.
    pub fn read(path: &Path) -> Result<ObservationFile, FileError> {
        let label = path.display().to_string();
        let text =
            crate::json::read_bounded(path, crate::json::MAX_DOCUMENT_BYTES, "observation file")
                .map_err(|error| FileError::Io {
                    path: label.clone(),
                    error,
                })?;
        ObservationFile::parse(&text, &label)
    }

    /// Parse JSON text; `path` labels errors. An object with a repeated
    /// key is refused (serde_json would keep the last one silently, and the
    /// file would be judged on half of what it says).
    pub fn parse(text: &str, path: &str) -> Result<ObservationFile, FileError> {
        let json_err = |error| FileError::Json {
            path: path.to_string(),
            error,
        };
        crate::json::refuse_duplicate_keys(text).map_err(json_err)?;
        let value: Value = serde_json::from_str(text).map_err(json_err)?;
        ObservationFile::from_value(&value, path)
    }

    pub fn from_value(value: &Value, path: &str) -> Result<ObservationFile, FileError> {
        let c = Ctx { path };
        let Value::Object(top) = value else {
            return Err(c.err("(top level)", "expected a JSON object"));
        };
        let req = |k: &str| top.get(k).ok_or_else(|| c.err(k, "missing"));
        match req("format")? {
            Value::String(s) if s == FORMAT => {}
            v => return Err(c.err("format", format!("expected \"{FORMAT}\", got {v}"))),
        }
        match req("instruction")? {
            Value::String(s) if s == INSTRUCTION => {}
            v => {
                return Err(c.err(
                    "instruction",
                    format!(
                    "expected \"{INSTRUCTION}\" (the only instruction this format covers), got {v}"
                ),
                ))
            }
        }
        let lds_bytes = c.uint(
            "lds_bytes",
            req("lds_bytes")?,
            u64::from(LDS_MAX_BYTES_PER_GROUP),
        )? as u32;
        if !lds_bytes.is_multiple_of(8) {
            return Err(c.err("lds_bytes", format!("{lds_bytes} is not a multiple of 8")));
        }
        let offset = match top.get("offset") {
            None => 0,
            Some(v) => c.uint("offset", v, 0xffff)? as u16,
        };
        let init = match top.get("init") {
            None => BTreeMap::new(),
            Some(v) => c.map("init", v, lds_bytes)?,
        };
        let final_ = match top.get("final") {
            None => BTreeMap::new(),
            Some(v) => c.map("final", v, lds_bytes)?,
        };
        let fault = match top.get("fault") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(v) => {
                return Err(c.err(
                    "fault",
                    format!("expected a string describing the fault, got {v}"),
                ))
            }
        };
        let Value::Array(raw_lanes) = req("lanes")? else {
            return Err(c.err("lanes", "expected an array of lane objects"));
        };
        let mut seen = HashSet::new();
        let mut lanes = Vec::with_capacity(raw_lanes.len());
        for (i, l) in raw_lanes.iter().enumerate() {
            lanes.push(Self::lane_from(&c, i, l, fault.is_some(), &mut seen)?);
        }
        let extra = top
            .iter()
            .filter(|(k, _)| !KNOWN_TOP.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(ObservationFile {
            lds_bytes,
            offset,
            init,
            lanes,
            final_,
            fault,
            extra,
        })
    }

    /// Lane `i` of the file's `lanes` (`has_fault`: the file records a
    /// fault, so the lane may lack `ret`); `seen` holds the (wave, lane)
    /// pairs before it, none listed twice.
    fn lane_from(
        c: &Ctx<'_>,
        i: usize,
        l: &Value,
        has_fault: bool,
        seen: &mut HashSet<(u32, u32)>,
    ) -> Result<FileLane, FileError> {
        let f = |k: &str| format!("lanes[{i}].{k}");
        let Value::Object(m) = l else {
            return Err(c.err(format!("lanes[{i}]"), "expected an object"));
        };
        let get = |k: &str| m.get(k).ok_or_else(|| c.err(f(k), "missing"));
        let wave = c.uint(&f("wave"), get("wave")?, 1023)? as u32;
        let lane = c.uint(&f("lane"), get("lane")?, 63)? as u32;
        if !seen.insert((wave, lane)) {
            return Err(c.err(
                format!("lanes[{i}]"),
                format!("wave {wave} lane {lane} is listed twice"),
            ));
        }
        let addr = c.hex(&f("addr"), get("addr")?, u64::from(u32::MAX))? as u32;
        let data = c.hex(&f("data"), get("data")?, u64::MAX)?;
        let ret = match m.get("ret") {
            Some(v) => Some(c.hex(&f("ret"), v, u64::MAX)?),
            None if has_fault => None,
            None => {
                return Err(c.err(
                    f("ret"),
                    "missing (only a file recording a fault may omit it)",
                ))
            }
        };
        let active = match m.get("active") {
            None => true,
            Some(Value::Bool(b)) => *b,
            Some(v) => return Err(c.err(f("active"), format!("expected true or false, got {v}"))),
        };
        let vdst_init = match m.get("vdst_init") {
            None => None,
            Some(v) => Some(c.hex(&f("vdst_init"), v, u64::MAX)?),
        };
        let extra = m
            .iter()
            .filter(|(k, _)| !KNOWN_LANE.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(FileLane {
            wave,
            lane,
            addr,
            data,
            ret,
            active,
            vdst_init,
            extra,
        })
    }

    /// The JSON value (unknown fields included).
    pub fn to_value(&self) -> Value {
        let mut top = self.extra.clone();
        top.insert("format".into(), FORMAT.into());
        top.insert("instruction".into(), INSTRUCTION.into());
        top.insert("lds_bytes".into(), self.lds_bytes.into());
        top.insert("offset".into(), self.offset.into());
        let qmap = |m: &BTreeMap<u64, u64>| -> Value {
            Value::Object(
                m.iter()
                    .map(|(a, v)| (format!("{a:#x}"), hex(*v)))
                    .collect(),
            )
        };
        top.insert("init".into(), qmap(&self.init));
        let lanes = self
            .lanes
            .iter()
            .map(|l| {
                let mut m = l.extra.clone();
                m.insert("wave".into(), l.wave.into());
                m.insert("lane".into(), l.lane.into());
                m.insert("addr".into(), hex(u64::from(l.addr)));
                m.insert("data".into(), hex(l.data));
                if let Some(r) = l.ret {
                    m.insert("ret".into(), hex(r));
                }
                if !l.active {
                    m.insert("active".into(), false.into());
                }
                if let Some(p) = l.vdst_init {
                    m.insert("vdst_init".into(), hex(p));
                }
                Value::Object(m)
            })
            .collect();
        top.insert("lanes".into(), Value::Array(lanes));
        top.insert("final".into(), qmap(&self.final_));
        if let Some(f) = &self.fault {
            top.insert("fault".into(), f.clone().into());
        }
        Value::Object(top)
    }

    /// Pretty JSON text.
    pub fn to_json(&self) -> String {
        // Serializing a Value built from strings and numbers cannot fail;
        // fall back to the compact form rather than panic.
        serde_json::to_string_pretty(&self.to_value())
            .unwrap_or_else(|_| self.to_value().to_string())
    }

    /// Export workgroup `group` of a case and what the device did with it.
    /// Every lane is listed (inactive ones with `active: false`), each with
    /// its `vdst_init`. `init` lists the nonzero qwords (absent ones are 0);
    /// `final` claims every qword an active lane addressed and every qword
    /// nonzero before or after (`addressed_qwords` says why that is
    /// enough).
    pub fn from_case_group(
        case: &Case,
        observation: Option<&Observation>,
        fault: Option<&str>,
        group: usize,
    ) -> Result<ObservationFile, CheckError> {
        validate_case(case)?;
        let shape = |why: String| CheckError::Shape {
            pattern: case.pattern.clone(),
            index: case.index,
            why,
        };
        if case.rounds() > 1 {
            // `dsxor-observation/1` holds one instruction per lane; the
            // final image of a multi-round launch is after every round.
            return Err(shape(format!(
                "the case has {} rounds; an observation file holds one (docs/src/reference/observation-rounds.md): replay the repro with `dsxor repro` instead",
                case.rounds()
            )));
        }
        let init_img = case
            .lds_init
            .get(group)
            .ok_or_else(|| shape(format!("no group {group}")))?;
        let final_img = match observation {
            Some(o) => Some(
                o.lds_final
                    .get(group)
                    .filter(|v| v.len() == init_img.len())
                    .ok_or_else(|| {
                        shape(format!(
                            "observation has no full final image for group {group}"
                        ))
                    })?,
            ),
            None => None,
        };
        let addressed = addressed_qwords(case, group, init_img.len(), &shape)?;
        let mut init = BTreeMap::new();
        let mut final_ = BTreeMap::new();
        for (q, &v) in init_img.iter().enumerate() {
            if v != 0 {
                init.insert(q as u64 * 8, v);
            }
            if let Some(f) = final_img.and_then(|img| img.get(q).copied()) {
                if v != 0 || f != 0 || addressed.get(q).copied().unwrap_or(false) {
                    final_.insert(q as u64 * 8, f);
                }
            }
        }
        let lanes = group_lanes(case, observation, group, &shape)?;
        let mut extra = Map::new();
        extra.insert("pattern".into(), case.pattern.clone().into());
        extra.insert("case_index".into(), case.index.into());
        extra.insert("group".into(), group.into());
        extra.insert("wave_size".into(), case.geometry.wave_size.lanes().into());
        Ok(ObservationFile {
            lds_bytes: case.lds_bytes,
            offset: case.offset,
            init,
            lanes,
            final_,
            fault: match (observation, fault) {
                (_, Some(f)) => Some(f.to_string()),
                (None, None) => Some("no observation recorded".into()),
                (Some(_), None) => None,
            },
            extra,
        })
    }

    /// Judge the file under `policy` (an error only for an invalid policy).
    pub fn judge(&self, policy: &Policy) -> Result<Verdict, CheckError> {
        policy.validate()?;
        let mut init = vec![0u64; self.lds_bytes as usize / 8];
        for (&a, &v) in &self.init {
            if let Some(q) = init.get_mut((a / 8) as usize) {
                *q = v;
            }
        }
        let mut fin: Vec<Option<u64>> = vec![None; init.len()];
        for (&a, &v) in &self.final_ {
            if let Some(q) = fin.get_mut((a / 8) as usize) {
                *q = Some(v);
            }
        }
        // Serialization key order: wave-major, then lane.
        let mut order: Vec<usize> = (0..self.lanes.len()).collect();
        order.sort_by_key(|&i| self.lanes.get(i).map(|l| (l.wave, l.lane)));
        let lanes: Vec<LaneView> = order
            .iter()
            .filter_map(|&i| {
                self.lanes.get(i).map(|l| LaneView {
                    r: LaneRef {
                        index: i,
                        wave: l.wave,
                        lane: l.lane,
                    },
                    addr: l.addr,
                    data: l.data,
                    active: l.active,
                    vdst_init: l.vdst_init,
                    // Without a ret (fault files) the lane's VDST is unknown;
                    // the fault path never reads it.
                    ret: l.ret.or(l.vdst_init).unwrap_or(0),
                })
            })
            .collect();
        let g = GroupView {
            group: 0,
            lds_bytes: self.lds_bytes,
            offset: self.offset,
            init: &init,
            final_: FinalView::Sparse(&fin),
            lanes: &lanes,
            keys: None,
        };
        Ok(Judge::default().judge_groups(std::slice::from_ref(&g), self.fault.as_deref(), policy))
    }
}

/// The qwords an active lane of workgroup `group` addresses (in an image
/// of `len` qwords), which `final` claims even when 0 before and after.
fn addressed_qwords(
    case: &Case,
    group: usize,
    len: usize,
    shape: &impl Fn(String) -> CheckError,
) -> Result<Vec<bool>, CheckError> {
    let per_group = case.geometry.lanes_per_group() as usize;
    // `final` claims the touched set, not the whole allocation (which
    // would be up to 8192 entries): every qword an active lane of the
    // group addressed (each qword the 8 bytes at ADDR + offset overlap,
    // so a misaligned lane's neighbours count too), plus every qword
    // nonzero before or after. Every qword left out is then 0 before,
    // 0 after and addressed by no lane, where the model expects 0 under
    // any policy, so the file judges exactly as the full image would.
    // Claiming addressed qwords even when 0 → 0 is what keeps a lost
    // update that leaves 0 where 0 was in the file.
    let mut addressed = vec![false; len];
    for local in 0..per_group {
        let i = group * per_group + local;
        let l = case
            .lanes
            .get(i)
            .ok_or_else(|| shape(format!("no lane {i}")))?;
        if !l.active {
            continue;
        }
        let eff = calc_ds_addr16(l.addr, case.offset);
        // First and last qword of bytes eff..=eff + 7 ((eff + 7) / 8).
        for q in [eff / 8, eff.div_ceil(8)] {
            if let Some(a) = usize::try_from(q).ok().and_then(|q| addressed.get_mut(q)) {
                *a = true;
            }
        }
    }
    Ok(addressed)
}

/// Every lane of workgroup `group`, with its return when observed.
fn group_lanes(
    case: &Case,
    observation: Option<&Observation>,
    group: usize,
    shape: &impl Fn(String) -> CheckError,
) -> Result<Vec<FileLane>, CheckError> {
    let per_group = case.geometry.lanes_per_group() as usize;
    let ws = case.geometry.wave_size.lanes() as usize;
    let mut lanes = Vec::with_capacity(per_group);
    for local in 0..per_group {
        let i = group * per_group + local;
        let l = case
            .lanes
            .get(i)
            .ok_or_else(|| shape(format!("no lane {i}")))?;
        let ret = match observation {
            Some(o) => Some(
                *o.ret
                    .get(i)
                    .ok_or_else(|| shape(format!("no return for lane {i}")))?,
            ),
            None => None,
        };
        lanes.push(FileLane {
            wave: (local / ws) as u32,
            lane: (local % ws) as u32,
            addr: l.addr,
            data: l.data,
            ret,
            active: l.active,
            vdst_init: Some(l.vdst_init),
            extra: Map::new(),
        });
    }
    Ok(lanes)
}
