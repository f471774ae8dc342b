//! `report::svg` against hand-made records: the SVG is well-formed XML (an
//! external parser, quick-xml, is the oracle) and carries the expected
//! labels and series as text, drawn without any font.

use crate::bench_support;

use bench_support::record;
use dsxor::report::svg::{render, SvgError};
use quick_xml::events::Event;
use quick_xml::Reader;

/// Parse the whole document; return every `<text>` element's content and
/// the count of each element name. Panics when the XML is malformed.
fn parse(svg: &str) -> (Vec<String>, std::collections::HashMap<String, usize>) {
    let mut reader = Reader::from_str(svg);
    reader.config_mut().check_end_names = true;
    let mut texts = Vec::new();
    let mut counts = std::collections::HashMap::new();
    let mut in_text = false;
    let mut depth = 0i32;
    let mut roots = 0;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                if depth == 0 {
                    roots += 1;
                }
                depth += 1;
                let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
                in_text = name == "text";
                if in_text {
                    texts.push(String::new());
                }
                *counts.entry(name).or_insert(0) += 1;
            }
            Ok(Event::Empty(e)) => {
                let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
                *counts.entry(name).or_insert(0) += 1;
            }
            Ok(Event::End(_)) => {
                depth -= 1;
                in_text = false;
            }
            Ok(Event::Text(t)) if in_text => {
                let s = t.decode().unwrap();
                let s = quick_xml::escape::unescape(&s).unwrap().to_string();
                texts.last_mut().unwrap().push_str(s.trim());
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("malformed SVG at {}: {e}", reader.buffer_position()),
        }
    }
    assert_eq!(depth, 0, "unclosed elements");
    assert_eq!(roots, 1, "one root element");
    (texts, counts)
}

fn has(texts: &[String], needle: &str) -> bool {
    texts.iter().any(|t| t.contains(needle))
}

#[test]
fn one_emulated_record() {
    let rec = record("2026-12-01T20:00:00Z", "emu", 1.0);
    let svg = render(std::slice::from_ref(&rec)).unwrap();
    assert!(svg.starts_with("<svg"));
    let (texts, counts) = parse(&svg);
    for r in rec.runs.iter().filter(|r| r.sweep == "patterns") {
        assert!(has(&texts, &r.name), "label {} missing", r.name);
    }
    assert!(has(&texts, "EMULATED lane-ops/s"));
    assert!(has(&texts, "not a GPU figure"));
    assert!(has(&texts, "no hardware ceiling"));
    assert!(!has(&texts, "% of ceiling"));
    assert!(has(&texts, "dsxor emu gfx11"));
    assert!(has(&texts, "waves per workgroup"));
    assert!(has(&texts, "wave32, 2 workgroups/CU"));
    assert!(has(&texts, "one record: give dsxor report several files"));
    // One filled bar per pattern run (plus the background and frames).
    assert!(counts["rect"] >= 16, "{counts:?}");
    // Median labels in SI units.
    assert!(has(&texts, "2.000 G"));
}

#[test]
fn several_records_show_a_trend_with_one_series_per_indep_pattern_run() {
    let recs = vec![
        record("2026-11-29T02:00:00Z", "emu", 1.0),
        record("2026-11-30T02:00:00Z", "emu", 1.1),
        record("2026-12-01T02:00:00Z", "emu", 0.5),
    ];
    let svg = render(&recs).unwrap();
    let (texts, counts) = parse(&svg);
    assert!(has(&texts, "across 3 record(s)"));
    for day in ["11-29 02:00", "11-30 02:00", "12-01 02:00"] {
        assert!(has(&texts, day), "x label {day} missing");
    }
    // Legend entries: the 8 independent-chain pattern runs.
    let legend: Vec<_> = texts
        .iter()
        .filter(|t| t.contains("/indep/wave") && !t.contains("ceiling"))
        .collect();
    assert!(
        legend.len() >= 16,
        "bar labels + legend entries: {legend:?}"
    );
    assert!(!has(&texts, "one record: give"));
    // Trend lines are polylines.
    assert!(
        counts.get("polyline").copied().unwrap_or(0) >= 8,
        "{counts:?}"
    );
    // The newest record is the one drawn per pattern: 0.5 x 2e9 = 1 G.
    assert!(has(&texts, "1.000 G"));
}

#[test]
fn records_of_one_minute_get_seconds_on_the_time_axis() {
    let recs = vec![
        record("2026-12-01T02:00:05Z", "emu", 1.0),
        record("2026-12-01T02:00:47Z", "emu", 1.0),
    ];
    let (texts, _) = parse(&render(&recs).unwrap());
    assert!(
        has(&texts, "12-01 02:00:05") && has(&texts, "12-01 02:00:47"),
        "{texts:?}"
    );
}

#[test]
fn gpu_record_shows_the_ceiling() {
    let rec = record("2026-12-01T20:00:00Z", "hip", 1.0);
    let (texts, _) = parse(&render(&[rec]).unwrap());
    assert!(has(
        &texts,
        "ceiling 3.840 T (96 CUs x 2500000 kHz x 16/clk/CU)"
    ));
    assert!(has(&texts, "% of ceiling"));
    assert!(has(&texts, "lane-ops/s on the GPU"));
    assert!(!has(&texts, "EMULATED"));
}

#[test]
fn failed_run_has_no_bar_but_its_outcome() {
    let mut rec = record("2026-12-01T20:00:00Z", "emu", 1.0);
    let good = render(std::slice::from_ref(&rec)).unwrap();
    let (_, good_counts) = parse(&good);
    let victim = rec
        .runs
        .iter_mut()
        .find(|r| r.name == "conflict-free/indep/wave32")
        .unwrap();
    victim.outcome = "wrong-result".into();
    victim.error = Some("3 output values differ".into());
    victim.lane_ops_per_second = None;
    let (texts, counts) = parse(&render(&[rec]).unwrap());
    assert!(has(
        &texts,
        "WRONG-RESULT: no rate counted 3 output values differ"
    ));
    assert_eq!(counts["rect"] + 1, good_counts["rect"]);
}

#[test]
fn mixing_emulated_and_gpu_records_is_refused() {
    let recs = vec![
        record("2026-12-01T20:00:00Z", "emu", 1.0),
        record("2026-12-02T20:00:00Z", "hip", 1.0),
    ];
    assert!(matches!(render(&recs), Err(SvgError::MixedMetrics(_, _))));
}

#[test]
fn text_needs_no_font_feature() {
    // No font crate in the dependency graph (the `ttf`/`ab_glyph` features
    // pull in font-kit / ab_glyph): labels are plain SVG <text>.
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap();
    for font_crate in [
        "name = \"font-kit\"",
        "name = \"ab_glyph\"",
        "name = \"ttf-parser\"",
        "name = \"freetype",
    ] {
        assert!(!lock.contains(font_crate), "{font_crate} is in Cargo.lock");
    }
    let svg = render(&[record("2026-12-01T20:00:00Z", "emu", 1.0)]).unwrap();
    assert!(svg.contains("font-family=\"sans-serif\""));
}

/// The picture's height, from the root element's `height` attribute.
fn height(svg: &str) -> u32 {
    let head = &svg[..svg.find('>').unwrap()];
    let at = head.find("height=\"").expect("a height attribute") + 8;
    head[at..].split('"').next().unwrap().parse().unwrap()
}

const WHISKER: &str = "whisker: slowest to fastest launch";

#[test]
fn rate_axes_start_at_zero_and_whiskers_have_a_legend() {
    let recs = vec![
        record("2026-11-29T02:00:00Z", "emu", 1.0),
        record("2026-11-30T02:00:00Z", "emu", 1.1),
        record("2026-12-01T02:00:00Z", "emu", 0.5),
    ];
    let (texts, _) = parse(&render(&recs).unwrap());
    // A 0 tick on each rate axis: patterns (x), occupancy (y), trend (y).
    // A log axis has no 0.
    let zeros = texts.iter().filter(|t| t.as_str() == "0").count();
    assert!(zeros >= 3, "0 ticks: {zeros} in {texts:?}");
    assert!(
        texts
            .iter()
            .filter(|t| t.contains("linear, from 0"))
            .count()
            >= 3,
        "every rate axis says it is linear from 0: {texts:?}"
    );
    // Whiskers are explained on every panel that draws them.
    let whisker_legends = texts.iter().filter(|t| t.as_str() == WHISKER).count();
    assert_eq!(whisker_legends, 3, "{texts:?}");
    // Rate ticks carry an SI prefix and no empty digits ("500 M", "1 G",
    // "1.5 G"; never "1.000 G", which is how value labels print).
    let clean_tick = |t: &str| {
        let Some((num, unit)) = t.split_once(' ') else {
            return false;
        };
        ["k", "M", "G", "T"].contains(&unit)
            && num.parse::<f64>().is_ok()
            && !(num.contains('.') && num.ends_with('0'))
    };
    let ticks = texts.iter().filter(|t| clean_tick(t)).count();
    assert!(
        ticks >= 6,
        "SI ticks without empty digits: {ticks} in {texts:?}"
    );
}

#[test]
fn trend_points_say_which_record_they_are() {
    let recs = vec![
        record("2026-11-29T02:00:00Z", "emu", 1.0),
        record("2026-11-30T02:00:00Z", "emu", 1.1),
    ];
    let (texts, _) = parse(&render(&recs).unwrap());
    // bench_support's records: DATA seed 1, 5 timed launches per run.
    assert!(has(&texts, "11-29 02:00, seed 0x1, 5 reps"), "{texts:?}");
    assert!(has(&texts, "11-30 02:00, seed 0x1, 5 reps"), "{texts:?}");
}

#[test]
fn one_record_gets_a_line_not_half_the_picture_for_its_trend() {
    let one = render(&[record("2026-12-01T20:00:00Z", "emu", 1.0)]).unwrap();
    let two = render(&[
        record("2026-11-30T20:00:00Z", "emu", 1.0),
        record("2026-12-01T20:00:00Z", "emu", 1.0),
    ])
    .unwrap();
    let (texts, _) = parse(&one);
    assert!(has(&texts, "one record: give dsxor report several files"));
    assert!(!has(&texts, "across 1 record(s)"), "{texts:?}");
    // The trend panel of two records is a chart of 460 px; one record's is
    // a line of text (44 px).
    assert_eq!(height(&two) - height(&one), 460 - 44);
}

#[test]
fn colours_are_okabe_ito_black_and_white() {
    // Okabe & Ito (2008) and the neutral black and white: nothing else, so
    // no pair of series is lost to a colour-vision deficiency.
    let allowed = [
        "#000000", "#FFFFFF", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00",
        "#CC79A7",
    ];
    let recs = vec![
        record("2026-11-30T20:00:00Z", "hip", 1.0),
        record("2026-12-01T20:00:00Z", "hip", 1.0),
    ];
    let svg = render(&recs).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for (i, _) in svg.match_indices('#') {
        let code = svg[i..].chars().take(7).collect::<String>().to_uppercase();
        if code.len() == 7 && code[1..].chars().all(|c| c.is_ascii_hexdigit()) {
            seen.insert(code);
        }
    }
    assert!(seen.len() >= 4, "colours found: {seen:?}");
    let foreign: Vec<_> = seen
        .iter()
        .filter(|c| !allowed.contains(&c.as_str()))
        .collect();
    assert!(
        foreign.is_empty(),
        "colours outside the palette: {foreign:?}"
    );
}
