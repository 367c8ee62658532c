//! Raw latency histograms in results: HdrHistogram's compressed V2 encoding
//! (the one its Java, C, Go and Rust libraries all read), in base64.
//!
//! A result keeps each op kind's whole histogram beside its summary
//! percentiles, so a report or a comparison can recompute any percentile,
//! and histograms of several runs (repeats, ranks) add exactly. One
//! histogram of a run takes a few hundred bytes to a few KB: the encoding
//! stores only the buckets that counted something, as zig-zag varints,
//! deflated.

use anyhow::{Context, Result};
use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};

/// `h` as base64 of its compressed V2 encoding.
pub fn encode(h: &Histogram<u64>) -> Result<String> {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new()
        .serialize(h, &mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot encode a latency histogram: {e:?}"))?;
    Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// A histogram from [`encode`]'s text (also what HdrHistogram's other
/// libraries write: V2, compressed or not).
pub fn decode(text: &str) -> Result<Histogram<u64>> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .context("the histogram is not base64")?;
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|e| anyhow::anyhow!("the histogram is not HdrHistogram's V2 encoding: {e:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Histogram<u64> {
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
        for v in 1..=10_000u64 {
            h.record(v * 1_000).unwrap();
        }
        h.record_n(5_000_000, 7).unwrap();
        h
    }

    /// What comes back is the same histogram: every bucket, so every
    /// percentile, the count, min and max.
    #[test]
    fn round_trip_keeps_every_bucket() {
        let h = sample();
        let back = decode(&encode(&h).unwrap()).unwrap();
        assert_eq!(back.len(), h.len());
        assert_eq!(back.min(), h.min());
        assert_eq!(back.max(), h.max());
        for q in [0.0, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0] {
            assert_eq!(back.value_at_quantile(q), h.value_at_quantile(q), "{q}");
        }
        assert!(h.iter_recorded().eq(back.iter_recorded()));
        // 10,000 distinct values over four decades: compact
        let text = encode(&h).unwrap();
        assert!(text.len() < 16_000, "{} bytes", text.len());
    }

    /// An empty histogram encodes too (a kind that saw no op).
    #[test]
    fn empty_round_trips() {
        let h = Histogram::<u64>::new_with_bounds(1, 1_000_000, 3).unwrap();
        let back = decode(&encode(&h).unwrap()).unwrap();
        assert_eq!(back.len(), 0);
    }

    /// A histogram HdrHistogram's Java library wrote (jHiccup 2.0.7, the
    /// first interval of the tagged log in HdrHistogram's test data, whose
    /// line gives its maximum as 2.769 ms): the encoding is the shared one,
    /// not ours alone.
    #[test]
    fn reads_what_the_java_library_wrote() {
        let h = decode(
            "HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISEuATEZMQ4uASkhIR4nrxg9v2lMaxhvMekILGZkKmcCAEf2CsI=",
        )
        .unwrap();
        assert_eq!((h.max() as f64 / 1e6 * 1000.0).round() / 1000.0, 2.769);
        assert_eq!(h.len(), 741);
        assert_eq!(h.value_at_quantile(0.5), 344_063);
    }

    #[test]
    fn bad_text_is_an_error_not_a_panic() {
        assert!(decode("not base64 !!").is_err());
        assert!(decode("AAAA").is_err());
        assert!(decode("").is_err());
    }
}
