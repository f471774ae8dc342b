//! `ConformanceDevice`: the conformance kernels on a `Backend`. It picks
//! the kernel that runs a case (the shipped one for its offset, or the
//! `_off0` kernel with the offset patched in, patched objects cached), runs
//! a case or a batch as one launch, and turns a fault or a timeout into the
//! case's outcome.

use std::collections::HashMap;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::abi::{
    dispatch_for_batch_in, dispatch_for_in, kernel_name_for, observation, observations,
    traffic_kernel_name, TRAFFIC_OFFSETS,
};
use super::batch::batch_key;
use super::objects::{codeobj_kernels, codeobj_patch, KernelObject, ListKernels, PatchOffset};
use super::{BatchOutcome, CaseDevice, DeviceOutcome, KernelIdentity};
use crate::backend::{Backend, BackendError, Completion, DeviceInfo};
use crate::case::{Case, Mode, WaveSize};

/// Offset-patched code objects a device keeps. The default suite patches a
/// fresh random offset for one case in 45, so an unbounded cache grew with
/// `--cases` (238 MB at 500,000 cases), and an offset seldom comes back
/// but within one case (its launches) or one repro's minimization (one
/// offset throughout): a few suffice. Re-patching an evicted one costs one
/// parse; each one kept costs a loaded module on the device too (through
/// the software HIP runtime about 0.3 MB of the worker's memory).
pub const PATCHED_CACHE: usize = 4;

/// One patched code object.
struct Patched {
    object: usize,
    /// The kernel patched (the one-round or the rounds kernel at offset 0).
    kernel: String,
    offset: u16,
    bytes: Vec<u8>,
    sha256: String,
}

/// The conformance kernels on a `Backend`.
pub struct ConformanceDevice<B: Backend> {
    backend: B,
    objects: Vec<KernelObject>,
    list_kernels: ListKernels,
    patch: PatchOffset,
    /// Kernel names per object (index into `objects`).
    kernels: HashMap<usize, Vec<String>>,
    /// Patched objects by (object, offset), with their sha256, most
    /// recently used first, at most [`PATCHED_CACHE`].
    patched: Vec<Patched>,
    timeout: Duration,
    /// [`CaseDevice::batch_cap`].
    batch: usize,
    /// The last launch's ABI buffers, whose allocations the next launch
    /// fills (`abi::buffers_for`): per launch, fresh ones page-faulted.
    staging: Vec<Vec<u8>>,
}

impl<B: Backend> ConformanceDevice<B> {
    pub fn new(
        backend: B,
        objects: Vec<KernelObject>,
        list_kernels: ListKernels,
        patch: PatchOffset,
        timeout: Duration,
    ) -> ConformanceDevice<B> {
        ConformanceDevice {
            backend,
            objects,
            list_kernels,
            patch,
            kernels: HashMap::new(),
            patched: Vec::new(),
            timeout,
            batch: 1,
            staging: Vec::new(),
        }
    }

    /// Up to `cap` cases per launch in [`run_cases`] (at least 1).
    pub fn with_batch(mut self, cap: usize) -> ConformanceDevice<B> {
        self.batch = cap.max(1);
        self
    }

    /// With the real code-object hooks.
    pub fn with_codeobj(
        backend: B,
        objects: Vec<KernelObject>,
        timeout: Duration,
    ) -> ConformanceDevice<B> {
        Self::new(backend, objects, codeobj_kernels, codeobj_patch, timeout)
    }

    pub fn backend(&self) -> &B {
        &self.backend
    }

    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    fn object_index(&self, wave: WaveSize, mode: Mode) -> Result<usize, BackendError> {
        self.objects
            .iter()
            .position(|o| o.wave == wave && o.mode == mode)
            .ok_or_else(|| {
                BackendError::Environment(format!(
                    "no conformance code object for wave{} in {mode} mode on {} ({})",
                    wave.lanes(),
                    self.backend.info().target_id,
                    self.backend.info().name
                ))
            })
    }

    /// (object index, kernel name, patched offset) for a case.
    fn choose(&mut self, case: &Case) -> Result<(usize, String, Option<u16>), BackendError> {
        let i = self.object_index(case.geometry.wave_size, case.geometry.mode)?;
        if !self.kernels.contains_key(&i) {
            let names = (self.list_kernels)(&self.objects[i].bytes).map_err(|e| {
                BackendError::Invalid(format!("code object {}: {e}", self.objects[i].source))
            })?;
            self.kernels.insert(i, names);
        }
        let names = self.kernels.get(&i).map(Vec::as_slice).unwrap_or(&[]);
        let rounds = case.rounds();
        if case.traffic.is_some() {
            // No patching: it would rewrite the atomic's offset and leave
            // the traffic's loads and stores at the shipped one.
            let k = traffic_kernel_name(case.offset);
            if names.contains(&k) {
                return Ok((i, k, None));
            }
            return Err(BackendError::Invalid(format!(
                "code object {} has no `{k}`: a case with background traffic runs on the \
                 traffic kernels at their shipped offsets {TRAFFIC_OFFSETS:?} only",
                self.objects[i].source
            )));
        }
        let shipped = kernel_name_for(case.offset, rounds);
        if names.contains(&shipped) {
            return Ok((i, shipped, None));
        }
        let base = kernel_name_for(0, rounds);
        if !names.contains(&base) {
            return Err(BackendError::Invalid(format!(
                "code object {} has neither `{shipped}` nor `{base}` to patch{}",
                self.objects[i].source,
                if rounds > 1 {
                    format!(" (a case of {rounds} rounds runs on the rounds kernels of kernels/dsxor.hip)")
                } else {
                    String::new()
                }
            )));
        }
        match self
            .patched
            .iter()
            .position(|p| p.object == i && p.offset == case.offset && p.kernel == base)
        {
            Some(0) => {}
            Some(at) => {
                let p = self.patched.remove(at);
                self.patched.insert(0, p);
            }
            None => {
                let bytes =
                    (self.patch)(&self.objects[i].bytes, &base, case.offset).map_err(|e| {
                        BackendError::Invalid(format!(
                            "patching offset {} into `{base}` of {}: {e}",
                            case.offset, self.objects[i].source
                        ))
                    })?;
                let sha256 = hex::encode(Sha256::digest(&bytes));
                self.patched.truncate(PATCHED_CACHE - 1);
                self.patched.insert(
                    0,
                    Patched {
                        object: i,
                        kernel: base.clone(),
                        offset: case.offset,
                        bytes,
                        sha256,
                    },
                );
            }
        }
        Ok((i, base, Some(case.offset)))
    }
}

/// A dispatch error as the code of whoever answers for it (the table in
/// docs/src/reference/exit-codes.md): with dsxor's own (embedded) object,
/// a dispatch the runtime calls invalid and an instruction the software
/// device cannot run are the runtime's or the device's trouble
/// (environment, 3: the user gave no input); with the user's
/// `--code-object` (origin `file`) both are that file's (bad input, 2).
fn answerable(e: BackendError, object: &KernelObject) -> BackendError {
    let users = object.origin == "file";
    match e {
        BackendError::Invalid(m) if !users => BackendError::Environment(format!(
            "{m} (with dsxor's own code object {}, so not an input's fault)",
            object.source
        )),
        BackendError::Unsupported(m) if users => {
            BackendError::Invalid(format!("{m} (in {})", object.source))
        }
        BackendError::Unsupported(m) => BackendError::Environment(m),
        e => e,
    }
}

/// The bytes of the object `choose` picked.
fn chosen_bytes<'a>(
    objects: &'a [KernelObject],
    patched: &'a [Patched],
    i: usize,
    kernel: &str,
    offset: Option<u16>,
) -> &'a [u8] {
    match offset {
        Some(off) => patched
            .iter()
            .find(|p| p.object == i && p.offset == off && p.kernel == kernel)
            .map_or(&[][..], |p| p.bytes.as_slice()),
        None => objects.get(i).map_or(&[][..], |o| o.bytes.as_slice()),
    }
}

impl<B: Backend> CaseDevice for ConformanceDevice<B> {
    fn info(&self) -> &DeviceInfo {
        self.backend.info()
    }

    fn run_case(&mut self, case: &Case) -> Result<DeviceOutcome, BackendError> {
        let (i, kernel, patched) = self.choose(case)?;
        let bytes = chosen_bytes(&self.objects, &self.patched, i, &kernel, patched);
        let staging = std::mem::take(&mut self.staging);
        let dispatch = dispatch_for_in(staging, case, bytes, &kernel, self.timeout);
        let result = self.backend.dispatch(&dispatch);
        self.staging = dispatch.buffers;
        match result.map_err(|e| answerable(e, &self.objects[i])) {
            Ok(done) => Ok(DeviceOutcome::Completed {
                observation: {
                    ran_in_mode(&done, case.geometry.mode, &kernel)?;
                    observation(case, &done)?
                },
                device_us: done.elapsed.as_micros() as u64,
            }),
            Err(e @ BackendError::Fault(_)) => Ok(DeviceOutcome::Fault {
                message: e.to_string(),
            }),
            Err(e @ BackendError::Timeout { .. }) => Ok(DeviceOutcome::Timeout {
                message: e.to_string(),
            }),
            Err(e) => Err(e),
        }
    }

    fn kernel_identity(&mut self, case: &Case) -> Result<KernelIdentity, BackendError> {
        let (i, kernel, patched) = self.choose(case)?;
        let base_sha256 = self.objects[i].sha256();
        let code_object_sha256 = match patched {
            Some(off) => self
                .patched
                .iter()
                .find(|p| p.object == i && p.offset == off && p.kernel == kernel)
                .map(|p| p.sha256.clone())
                .unwrap_or_default(),
            None => base_sha256.clone(),
        };
        Ok(KernelIdentity {
            kernel,
            wave: case.geometry.wave_size,
            mode: self.objects[i].mode,
            code_object_sha256,
            base_sha256,
            source: self.objects[i].source.clone(),
            patched_offset: patched,
        })
    }

    fn launch(
        &mut self,
        dispatch: &crate::backend::Dispatch<'_>,
    ) -> Result<Completion, BackendError> {
        self.backend.dispatch(dispatch)
    }

    fn kernel_objects(&self) -> &[KernelObject] {
        &self.objects
    }

    fn batch_cap(&self) -> usize {
        self.batch
    }

    fn run_batch(&mut self, cases: &[&Case]) -> Result<BatchOutcome, BackendError> {
        let Some(first) = cases.first() else {
            return Ok(BatchOutcome::Each(Vec::new()));
        };
        let key = batch_key(first);
        if key.is_none() || cases.iter().any(|c| batch_key(c) != key) {
            return Err(BackendError::Invalid(
                "a batched launch needs cases of one batch key".into(),
            ));
        }
        let (i, kernel, patched) = self.choose(first)?;
        let bytes = chosen_bytes(&self.objects, &self.patched, i, &kernel, patched);
        let staging = std::mem::take(&mut self.staging);
        let dispatch = dispatch_for_batch_in(staging, cases, bytes, &kernel, self.timeout);
        let result = self.backend.dispatch(&dispatch);
        self.staging = dispatch.buffers;
        match result.map_err(|e| answerable(e, &self.objects[i])) {
            Ok(done) => {
                ran_in_mode(&done, first.geometry.mode, &kernel)?;
                // Each case's share of the launch's device time.
                let device_us = (done.elapsed.as_micros() / cases.len() as u128) as u64;
                Ok(BatchOutcome::Each(
                    observations(cases, &done)?
                        .into_iter()
                        .map(|observation| DeviceOutcome::Completed {
                            observation,
                            device_us,
                        })
                        .collect(),
                ))
            }
            Err(e @ BackendError::Fault(_)) => Ok(BatchOutcome::Whole(DeviceOutcome::Fault {
                message: e.to_string(),
            })),
            Err(e @ BackendError::Timeout { .. }) => {
                Ok(BatchOutcome::Whole(DeviceOutcome::Timeout {
                    message: e.to_string(),
                }))
            }
            Err(e) => Err(e),
        }
    }
}

/// A launch the device says it ran in another mode than the case asked
/// for is refused (`Invalid`): the object choice went wrong, and the
/// case's verdict would name a mode it never ran in. A device that cannot
/// tell (`wgp_mode` None: HIP) is trusted with the object it was given.
fn ran_in_mode(done: &Completion, mode: Mode, kernel: &str) -> Result<(), BackendError> {
    match done.wgp_mode {
        Some(wgp) if wgp != (mode == Mode::Wgp) => Err(BackendError::Invalid(format!(
            "the device ran `{kernel}` with COMPUTE_PGM_RSRC1.WGP_MODE = {}, but the case asks for {mode} mode",
            u8::from(wgp)
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::conformance::{
        embedded_objects, launch_groups, run_cases, BUF_RET, DEFAULT_BATCH,
    };
    use crate::backend::{Completion, Dispatch};
    use crate::case::Observation;

    /// A backend that counts launches and, optionally, faults every launch
    /// whose `ret` buffer holds `poison` (a VDST-before value only the
    /// culprit case has: a case that "faults the device"), around the
    /// software device.
    struct Counting {
        inner: crate::backend::emu::EmuBackend,
        launches: usize,
        poison: Option<u64>,
    }

    impl Backend for Counting {
        fn info(&self) -> &DeviceInfo {
            self.inner.info()
        }
        fn dispatch(&mut self, d: &Dispatch<'_>) -> Result<Completion, BackendError> {
            self.launches += 1;
            if let Some(p) = self.poison {
                if d.buffers[BUF_RET]
                    .chunks_exact(8)
                    .any(|c| c == p.to_le_bytes())
                {
                    return Err(BackendError::Fault("poisoned".into()));
                }
            }
            self.inner.dispatch(d)
        }
    }

    fn device(poison: Option<u64>, batch: usize) -> ConformanceDevice<Counting> {
        let inner = crate::backend::emu::EmuBackend::new(crate::emu::EmuConfig {
            threads: Some(1),
            ..crate::emu::EmuConfig::default()
        })
        .unwrap();
        ConformanceDevice::with_codeobj(
            Counting {
                inner,
                launches: 0,
                poison,
            },
            embedded_objects("gfx1100"),
            Duration::from_secs(10),
        )
        .with_batch(batch)
    }

    /// The first `n` cases of the default suite (seed 1).
    fn suite_cases(n: u64) -> Vec<Case> {
        let spec =
            crate::gen::SuiteSpec::new(1, 2000, &[], &[], &[], crate::gen::suite::Shard::WHOLE)
                .unwrap();
        spec.plan_iter()
            .take(n as usize)
            .map(|p| spec.generate(p).case)
            .collect()
    }

    fn completed(o: &Result<DeviceOutcome, BackendError>) -> &Observation {
        match o {
            Ok(DeviceOutcome::Completed { observation, .. }) => observation,
            other => panic!("{other:?}"),
        }
    }

    /// Batched, every case sees exactly what it sees alone, in far fewer
    /// launches. (Run with `with_batch(1)` both ways, the launch count
    /// assertion fails: it is what batching buys.)
    #[test]
    fn a_batched_launch_gives_each_case_its_own_outcome() {
        let cases = suite_cases(480);
        let refs: Vec<&Case> = cases.iter().collect();
        let mut alone = device(None, 1);
        let mut batched = device(None, DEFAULT_BATCH);
        let a = run_cases(&mut alone, &refs);
        let b = run_cases(&mut batched, &refs);
        assert_eq!(alone.backend().launches, cases.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(completed(x), completed(y));
        }
        let launches = batched.backend().launches;
        // 78 of 480 at this writing: the first cells mix sizes, and CU and
        // WGP mode cases (different objects) never share a launch.
        assert!(
            launches * 3 <= cases.len(),
            "{launches} launches for {} cases",
            cases.len()
        );
    }

    /// A batch that faults blames none of its cases: they run again one per
    /// launch, and only the case that faults alone gets the fault.
    #[test]
    fn a_faulting_batch_is_rerun_one_case_per_launch() {
        let mut cases = suite_cases(40);
        // A case in a launch group of several, marked by a VDST-before
        // value no other case has.
        let groups = launch_groups(&cases.iter().collect::<Vec<_>>(), DEFAULT_BATCH);
        let group = groups
            .iter()
            .find(|g| g.len() > 2)
            .expect("a batch")
            .clone();
        let culprit = group[1];
        let poison = 0x5eed_f00d_dead_beef;
        cases[culprit].lanes[0].vdst_init = poison;
        let refs: Vec<&Case> = cases.iter().collect();
        assert_eq!(launch_groups(&refs, DEFAULT_BATCH), groups);
        let mut d = device(Some(poison), DEFAULT_BATCH);
        let out = run_cases(&mut d, &refs);
        for (i, o) in out.iter().enumerate() {
            match o {
                Ok(DeviceOutcome::Fault { message }) => {
                    assert_eq!(i, culprit, "{message}");
                }
                Ok(DeviceOutcome::Completed { .. }) => assert_ne!(i, culprit),
                other => panic!("case {i}: {other:?}"),
            }
        }
        // The group's launch, then each of its cases again.
        assert_eq!(d.backend().launches, groups.len() + group.len());
    }
}
