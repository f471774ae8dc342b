//! The one qualification loop, over any [`Corpus`]: for each name, the
//! programs of each wave size run on the device and on the software
//! device, each output held against the pseudocode's; a program that
//! agrees on both is counted, any other is a disagreement (a side that
//! faulted or timed out included); an error of the environment or of the
//! input ends the run with what ran before it recorded.

use std::time::Duration;

use super::{agrees, split, summary, QualifyError, QualifyRecord, SideRun, Unfinished};
use crate::backend::{Backend, Completion, Dispatch};
use crate::case::WaveSize;

/// What a qualification run is asked for, besides the corpus and the names.
#[derive(Clone, Copy, Debug)]
pub struct Options<'a> {
    /// The code objects the programs are made from, one per wave size.
    pub objects: &'a [(WaveSize, &'a [u8])],
    /// The seed of the programs' inputs.
    pub seed: u64,
    /// Programs per name and wave size.
    pub cases_per_wave: u64,
    /// A launch not complete after this long is a timeout.
    pub timeout: Duration,
}

/// Where a name's programs are made: the name, a wave size and the code
/// object for it.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    pub name: &'a str,
    pub wave: WaveSize,
    pub code: &'a [u8],
}

/// The counts of a record row, which every corpus's row keeps.
pub struct Tally<'r> {
    pub programs: &'r mut u64,
    pub agreed: &'r mut u64,
    pub qualified: &'r mut bool,
}

/// A program's three answers, for a disagreement: which sides differ and
/// how (`summary`), each side's output (empty when it did not complete)
/// and how it did not complete, and the pseudocode's.
pub struct Answers<T> {
    pub summary: String,
    pub device: T,
    pub device_unfinished: Option<Unfinished>,
    pub emu: T,
    pub emu_unfinished: Option<Unfinished>,
    pub pseudocode: T,
}

/// One corpus of `dsxor qualify`: its names, their programs per wave size,
/// how a program runs on a backend and reads back, what its pseudocode
/// says, and where the record keeps its rows and disagreements.
pub trait Corpus {
    /// A name's row in the record.
    type Row;
    type Disagreement;
    /// What a side leaves; `Default` is the empty output recorded for a
    /// side that did not complete.
    type Output: PartialEq + Default;
    /// What the programs of one name on one wave size share.
    type Wave;
    /// One program and its input.
    type Program;

    /// The row of `name` over the wave sizes of `objects` it runs on (an
    /// error when the corpus has no such name).
    fn row(&self, name: &str, objects: &[(WaveSize, &[u8])]) -> Result<Self::Row, QualifyError>;
    /// The wave sizes a row runs on.
    fn waves(row: &Self::Row) -> &[WaveSize];
    fn tally(row: &mut Self::Row) -> Tally<'_>;
    /// Where `record` keeps this corpus's rows and disagreements.
    fn found(record: &mut QualifyRecord) -> (&mut Vec<Self::Row>, &mut Vec<Self::Disagreement>);

    /// What the programs of `at` share.
    fn wave(&self, at: &Target<'_>) -> Result<Self::Wave, QualifyError>;
    /// Program `index` of `at` (its input from `seed`).
    fn program(
        &self,
        at: &Target<'_>,
        w: &mut Self::Wave,
        seed: u64,
        index: u64,
    ) -> Result<Self::Program, QualifyError>;
    /// The launch that runs `p`.
    fn dispatch<'p>(
        &self,
        w: &'p Self::Wave,
        p: &'p Self::Program,
        timeout: Duration,
    ) -> Dispatch<'p>;
    /// `p`'s output in a completed launch on `side` (`device` or `emu`).
    fn read(
        &self,
        p: &Self::Program,
        done: &Completion,
        side: &'static str,
    ) -> Result<Self::Output, QualifyError>;
    /// What the pseudocode says `p` leaves.
    fn expected(
        &self,
        at: &Target<'_>,
        w: &Self::Wave,
        p: &Self::Program,
    ) -> Result<Self::Output, QualifyError>;
    /// The record's entry for a program whose answers differ.
    fn disagreement(
        &self,
        at: &Target<'_>,
        p: Self::Program,
        answers: Answers<Self::Output>,
    ) -> Self::Disagreement;
}

/// Run `names` of `corpus` on both sides into `record`, reporting each
/// name's row to `progress` when it is done. On an error every name run
/// before it is in `record`, and the one it stopped in with the programs
/// that ran (not qualified), so a caller can still write what was found.
pub fn qualify_into<C: Corpus>(
    corpus: &C,
    record: &mut QualifyRecord,
    device: &mut dyn Backend,
    emu: &mut dyn Backend,
    names: &[&str],
    opts: &Options<'_>,
    progress: &mut dyn FnMut(&C::Row),
) -> Result<(), QualifyError> {
    for name in names {
        let mut row = corpus.row(name, opts.objects)?;
        let (_, disagreements) = C::found(record);
        let ran = run_name(corpus, name, &mut row, disagreements, device, emu, opts);
        let t = C::tally(&mut row);
        *t.qualified = ran.is_ok() && *t.programs > 0 && *t.agreed == *t.programs;
        progress(&row);
        C::found(record).0.push(row);
        ran?;
    }
    Ok(())
}

/// The programs of one name, counted in `row`, their disagreements pushed
/// on `disagreements` as they are found.
fn run_name<C: Corpus>(
    corpus: &C,
    name: &str,
    row: &mut C::Row,
    disagreements: &mut Vec<C::Disagreement>,
    device: &mut dyn Backend,
    emu: &mut dyn Backend,
    opts: &Options<'_>,
) -> Result<(), QualifyError> {
    let waves = C::waves(row).to_vec();
    for (wave, code) in opts.objects.iter().filter(|(w, _)| waves.contains(w)) {
        let at = Target {
            name,
            wave: *wave,
            code,
        };
        let mut w = corpus.wave(&at)?;
        for index in 0..opts.cases_per_wave {
            let p = corpus.program(&at, &mut w, opts.seed, index)?;
            // The program's output, or the fault or timeout it ended with
            // (a finding); anything else ends the run.
            let run = |b: &mut dyn Backend,
                       side: &'static str|
             -> Result<SideRun<C::Output>, QualifyError> {
                match b.dispatch(&corpus.dispatch(&w, &p, opts.timeout)) {
                    Ok(done) => corpus.read(&p, &done, side).map(Ok),
                    Err(e) => Unfinished::from_backend(e)
                        .map(Err)
                        .map_err(|error| QualifyError::Device { side, error }),
                }
            };
            let on_device = run(&mut *device, "device")?;
            let on_emu = run(&mut *emu, "emu")?;
            let want = corpus.expected(&at, &w, &p)?;
            let t = C::tally(row);
            *t.programs += 1;
            if on_device.as_ref() == Ok(&want) && on_emu.as_ref() == Ok(&want) {
                *t.agreed += 1;
                continue;
            }
            let summary = summary(
                agrees(&on_device, &want),
                agrees(&on_emu, &want),
                on_device == on_emu,
            );
            let (device, device_unfinished) = split(on_device);
            let (emu, emu_unfinished) = split(on_emu);
            disagreements.push(corpus.disagreement(
                &at,
                p,
                Answers {
                    summary,
                    device,
                    device_unfinished,
                    emu,
                    emu_unfinished,
                    pseudocode: want,
                },
            ));
        }
    }
    Ok(())
}
