//! Interval histograms: per op kind, one latency histogram per interval of
//! the measured phase (`--log-hist`), written as HdrHistogram's interval
//! log.
//!
//! A worker asked to keep them records each op twice: into its kind's
//! whole-run histogram ([`super::KindStats`]) and into the histogram of the
//! interval under way. When an op lands in another interval, the finished
//! interval's histograms are packed (HdrHistogram's uncompressed V2
//! encoding: only the buckets that counted, as varints, about 1–3 bytes
//! each) and reset for reuse; so a worker holds one live histogram per kind
//! and a few KB per finished interval and kind. Intervals are indexed by
//! the same `at` (ns since the start of measurement) as the time series,
//! by the op's end.
//!
//! ```text
//!  at:   0 ───────── 1 s ───────── 2 s ──── end
//!        [ interval 0 ][ interval 1 ][ 2 … ]      per kind, per worker
//!  workers' interval i, kind k  ──add──>  one histogram per (i, k)
//! ```
//!
//! Histograms of one precision add exactly, bucket by bucket, so the
//! workers' intervals merge into the run's without loss, and the counts of
//! a kind's intervals add up to its count in the result.

use super::{MAX_LATENCY_NS, OpKind, SIG_DIGITS};
use hdrhistogram::Histogram;
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer, V2Serializer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

/// The histogram an interval starts with: 1 ns … 16 µs (48 KiB), growing
/// as longer latencies come (buckets never move, as the run's own).
const INITIAL_MAX_NS: u64 = 1 << 14;

fn new_hist() -> Histogram<u64> {
    let mut h = Histogram::new_with_bounds(1, INITIAL_MAX_NS, SIG_DIGITS)
        .expect("static histogram bounds are valid");
    h.auto(true);
    h
}

/// `n` samples of `lat_ns`, clamped to the histograms' range.
#[inline(always)]
fn record(h: &mut Histogram<u64>, lat_ns: u64, n: u64) {
    let v = lat_ns.clamp(1, MAX_LATENCY_NS);
    if h.record_n(v, n).is_err() {
        h.saturating_record_n(v, n);
    }
}

/// One finished interval of one kind, packed: HdrHistogram's V2 encoding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Packed {
    /// The interval's index: it covers `[index × interval, (index+1) × interval)`.
    pub index: u64,
    pub kind: OpKind,
    /// The histogram, V2-encoded (not deflated), in base64 on the wire.
    #[serde(with = "b64")]
    pub v2: Vec<u8>,
}

mod b64 {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(v))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .map_err(serde::de::Error::custom)
    }
}

fn pack(h: &Histogram<u64>) -> Vec<u8> {
    let mut v = Vec::new();
    V2Serializer::new()
        .serialize(h, &mut v)
        .expect("a histogram always encodes into memory");
    v
}

fn unpack(v2: &[u8]) -> Result<Histogram<u64>, String> {
    Deserializer::new()
        .deserialize(&mut &v2[..])
        .map_err(|e| format!("an interval histogram does not decode: {e:?}"))
}

/// One worker's interval histograms (see the module's doc).
#[derive(Clone, Debug)]
pub struct IntervalHists {
    interval_ns: u64,
    /// The interval under way: its histogram per kind, made at the kind's
    /// first op and reused by the next intervals.
    live: [Option<Box<Histogram<u64>>>; OpKind::COUNT],
    cur_start: u64,
    cur_end: u64,
    /// Finished intervals, in the order they finished.
    done: Vec<Packed>,
}

impl IntervalHists {
    /// Intervals of `interval_ns` (> 0), with histograms made ahead for
    /// `kinds` (so their first op does not allocate).
    pub fn new(interval_ns: u64, kinds: &[OpKind]) -> IntervalHists {
        assert!(interval_ns > 0, "an interval is longer than 0");
        let mut live: [Option<Box<Histogram<u64>>>; OpKind::COUNT] = Default::default();
        for &k in kinds {
            live[k.index()] = Some(Box::new(new_hist()));
        }
        IntervalHists {
            interval_ns,
            live,
            cur_start: 0,
            cur_end: interval_ns,
            done: Vec::new(),
        }
    }

    pub fn interval_ns(&self) -> u64 {
        self.interval_ns
    }

    /// `n` ops of `kind` that took `lat_ns` each and ended `at_ns` after
    /// the start of measurement.
    #[inline(always)]
    pub fn record(&mut self, kind: OpKind, lat_ns: u64, n: u64, at_ns: u64) {
        if at_ns < self.cur_start || at_ns >= self.cur_end {
            self.seek(at_ns);
        }
        match &mut self.live[kind.index()] {
            Some(h) => record(h, lat_ns, n),
            slot => record(slot.insert(Box::new(new_hist())), lat_ns, n),
        }
    }

    /// Pack the interval under way and move to the one holding `at_ns`.
    #[cold]
    #[inline(never)]
    fn seek(&mut self, at_ns: u64) {
        self.pack_live();
        let i = at_ns / self.interval_ns;
        self.cur_start = i * self.interval_ns;
        self.cur_end = self.cur_start.saturating_add(self.interval_ns);
    }

    fn pack_live(&mut self) {
        let index = self.cur_start / self.interval_ns;
        for (k, slot) in OpKind::ALL.iter().zip(self.live.iter_mut()) {
            if let Some(h) = slot
                && !h.is_empty()
            {
                self.done.push(Packed {
                    index,
                    kind: *k,
                    v2: pack(h),
                });
                h.reset();
            }
        }
    }

    /// Forget everything (the end of a ramp); keeps the live histograms.
    pub fn reset(&mut self) {
        for h in self.live.iter_mut().flatten() {
            h.reset();
        }
        self.done.clear();
        (self.cur_start, self.cur_end) = (0, self.interval_ns);
    }

    /// Every interval recorded, packed (the one under way too).
    pub fn finish(mut self) -> Vec<Packed> {
        self.pack_live();
        self.done
    }

    /// Interval histograms from [`IntervalHists::finish`]'s packs (a worker
    /// process's, off the wire): they are finished, the live ones empty.
    pub fn from_packed(interval_ns: u64, packed: Vec<Packed>) -> IntervalHists {
        let mut h = IntervalHists::new(interval_ns.max(1), &[]);
        h.done = packed;
        h
    }

    /// What [`IntervalHists::finish`] would give, leaving `self` as it is.
    pub fn packed(&self) -> Vec<Packed> {
        self.clone().finish()
    }
}

/// One timed phase's interval histograms, all its workers merged.
#[derive(Debug, Default)]
pub struct Phase {
    /// When its measured time began (wall clock).
    pub start: Option<SystemTime>,
    /// How long its measured time lasted.
    pub elapsed: Duration,
    pub interval_ns: u64,
    /// Per (interval index, kind): the histogram, V2-encoded.
    pub slices: BTreeMap<(u64, OpKind), Vec<u8>>,
}

impl Phase {
    /// The workers' packs merged by interval and kind: histograms add
    /// bucket by bucket.
    pub fn merge(
        start: SystemTime,
        elapsed: Duration,
        interval_ns: u64,
        packs: impl IntoIterator<Item = Packed>,
    ) -> Result<Phase, String> {
        let mut phase = Phase {
            start: Some(start),
            elapsed,
            interval_ns,
            slices: BTreeMap::new(),
        };
        let mut by_key: BTreeMap<(u64, OpKind), Vec<Vec<u8>>> = BTreeMap::new();
        for p in packs {
            by_key.entry((p.index, p.kind)).or_default().push(p.v2);
        }
        // one histogram at a time: the packs are small, a histogram is not
        let mut sum = new_hist();
        for (key, packs) in by_key {
            if let [one] = &packs[..] {
                phase.slices.insert(key, one.clone());
                continue;
            }
            sum.reset();
            for v2 in &packs {
                sum.add(unpack(v2)?)
                    .map_err(|e| format!("interval histograms do not add: {e:?}"))?;
            }
            phase.slices.insert(key, pack(&sum));
        }
        Ok(phase)
    }

    /// The kind's total count over its intervals.
    pub fn count(&self, kind: OpKind) -> u64 {
        self.slices
            .iter()
            .filter(|((_, k), _)| *k == kind)
            .map(|(_, v)| unpack(v).map(|h| h.len()).unwrap_or(0))
            .sum()
    }
}

/// Write `phases` as HdrHistogram's interval log to `w`: a header (what
/// the values are, `#[StartTime: …]`, `#[BaseTime: …]`, the legend), then
/// per phase, per interval, per kind seen in the phase, one line
/// `Tag=KIND,start,length,max,HISTFAAA…`. Timestamps are seconds since the
/// first phase's start (the BaseTime); the last interval of a phase is as
/// long as what was left of it. A kind's interval without ops is written
/// as an empty histogram, so every kind has a line for every interval of
/// its phases. `command` names the run in a comment.
pub fn write_log(
    phases: &[Phase],
    command: &str,
    w: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let base = phases
        .iter()
        .filter_map(|p| p.start)
        .min()
        .unwrap_or_else(SystemTime::now);
    let mut ser = V2DeflateSerializer::new();
    let mut b = IntervalLogWriterBuilder::new();
    b.add_comment(&format!("Logged with iogauge {}", env!("CARGO_PKG_VERSION")))
        .add_comment(&format!("Command: {command}"))
        .add_comment(
            "Values are latencies in nanoseconds (HdrHistogram's tools: -outputValueUnitRatio 1000 for microseconds, 1000000 for milliseconds); one tag per op kind; the max column is in milliseconds",
        )
        .add_comment("[Histogram log format version 1.3]")
        .with_start_time(base)
        .with_base_time(base)
        .with_max_value_divisor(1e6);
    let mut log = b.begin_log_with(w, &mut ser)?;
    log.write_comment(
        "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"",
    )?;
    let empty = new_hist();
    for p in phases {
        let offset = p
            .start
            .and_then(|s| s.duration_since(base).ok())
            .unwrap_or_default();
        let kinds: std::collections::BTreeSet<OpKind> = p.slices.keys().map(|&(_, k)| k).collect();
        let elapsed = p.elapsed.as_nanos() as u64;
        let last = p.slices.keys().map(|&(i, _)| i).max().unwrap_or(0);
        let n = elapsed.div_ceil(p.interval_ns.max(1)).max(last + 1);
        for i in 0..n {
            let from = i * p.interval_ns;
            let len = if elapsed > from {
                (elapsed - from).min(p.interval_ns)
            } else {
                p.interval_ns
            };
            for &k in &kinds {
                let h = match p.slices.get(&(i, k)) {
                    Some(v) => unpack(v).map_err(std::io::Error::other)?,
                    None => empty.clone(),
                };
                let tag = Tag::new(k.name()).expect("op kind names make valid tags");
                log.write_histogram(
                    &h,
                    offset + Duration::from_nanos(from),
                    Duration::from_nanos(len),
                    Some(tag),
                )
                .map_err(|e| std::io::Error::other(format!("{e:?}")))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};

    const S: u64 = 1_000_000_000;

    #[test]
    fn ops_land_in_the_interval_of_their_end() {
        let mut a = IntervalHists::new(S, &[OpKind::Read]);
        a.record(OpKind::Read, 100, 1, 0);
        a.record(OpKind::Read, 200, 2, S - 1);
        a.record(OpKind::Write, 5_000, 1, S);
        a.record(OpKind::Read, 300, 1, 3 * S + 7);
        // late: an op that ended in an interval already packed
        a.record(OpKind::Read, 400, 1, S + 1);
        let packs = a.finish();
        let got: Vec<(u64, OpKind, u64)> = packs
            .iter()
            .map(|p| (p.index, p.kind, unpack(&p.v2).unwrap().len()))
            .collect();
        assert_eq!(
            got,
            [
                (0, OpKind::Read, 3),
                (1, OpKind::Write, 1),
                (3, OpKind::Read, 1),
                (1, OpKind::Read, 1),
            ]
        );
    }

    #[test]
    fn workers_merge_by_interval_exactly() {
        let mut a = IntervalHists::new(S, &[]);
        let mut b = IntervalHists::new(S, &[]);
        for i in 0..3000u64 {
            a.record(OpKind::Read, 1_000 + i, 1, i * S / 1000);
            b.record(OpKind::Read, 50_000_000 + i, 1, i * S / 1000 + 1);
        }
        b.record(OpKind::Read, 7, 5, 0);
        let packs = a.finish().into_iter().chain(b.finish());
        let p = Phase::merge(SystemTime::UNIX_EPOCH, Duration::from_secs(3), S, packs).unwrap();
        assert_eq!(p.slices.len(), 3);
        let h0 = unpack(&p.slices[&(0, OpKind::Read)]).unwrap();
        assert_eq!(h0.len(), 2005);
        assert_eq!(h0.min(), 7);
        assert!(h0.max() >= 50_000_000 + 999);
        // the same samples recorded into one histogram give the same buckets
        let mut one = new_hist();
        for i in 0..1000u64 {
            one.record(1_000 + i).unwrap();
            one.record(50_000_000 + i).unwrap();
        }
        one.record_n(7, 5).unwrap();
        assert_eq!(h0, one);
        assert_eq!(p.count(OpKind::Read), 6005);
    }

    #[test]
    fn a_reset_forgets_the_ramp() {
        let mut a = IntervalHists::new(S, &[OpKind::Read]);
        a.record(OpKind::Read, 10, 1, 5 * S);
        a.reset();
        a.record(OpKind::Read, 10, 1, 0);
        let packs = a.finish();
        assert_eq!(packs.len(), 1);
        assert_eq!(packs[0].index, 0);
    }

    #[test]
    fn the_log_reads_back_with_hdrhistograms_reader() {
        let mut a = IntervalHists::new(S / 2, &[]);
        for i in 0..100u64 {
            a.record(OpKind::Read, 1000 + i, 1, i * S / 100);
        }
        a.record(OpKind::Write, 9_000, 4, S / 4);
        let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let p = Phase::merge(start, Duration::from_millis(1200), S / 2, a.finish()).unwrap();
        let mut out = Vec::new();
        write_log(&[p], "iogauge run", &mut out).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(text.contains("#[StartTime: 1700000000.000"), "{text}");
        assert!(text.contains("#[BaseTime: 1700000000.000"), "{text}");
        let mut lines = Vec::new();
        for e in IntervalLogIterator::new(&out) {
            if let LogEntry::Interval(h) = e.unwrap() {
                let hist = hdrhistogram::serialization::Deserializer::new()
                    .deserialize::<u64, _>(
                        &mut &base64::Engine::decode(
                            &base64::engine::general_purpose::STANDARD,
                            h.encoded_histogram(),
                        )
                        .unwrap()[..],
                    )
                    .unwrap();
                lines.push((
                    h.tag().unwrap().as_str().to_string(),
                    h.start_timestamp().as_millis(),
                    h.duration().as_millis(),
                    hist.len(),
                ));
            }
        }
        // 0–0.5 s, 0.5–1 s, 1–1.2 s (the last one shorter), both kinds each time
        assert_eq!(
            lines,
            [
                ("read".into(), 0, 500, 50),
                ("write".into(), 0, 500, 4),
                ("read".into(), 500, 500, 50),
                ("write".into(), 500, 500, 0),
                ("read".into(), 1000, 200, 0),
                ("write".into(), 1000, 200, 0),
            ]
        );
    }
}
