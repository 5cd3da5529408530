//! Units for Criterion's reports: counts scale by thousands with the event's own unit
//! ("12.34 Minst", "64.00 faults"); CPU clocks, which count nanoseconds, as times.

use criterion::measurement::ValueFormatter;
use criterion::Throughput;

/// One unit at four scales (×1, ×10³, ×10⁶, ×10⁹), and per byte and per element of
/// throughput. All `'static` because Criterion's formatter returns `&'static str`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Unit {
    scaled: [&'static str; 4],
    per_byte: &'static str,
    per_element: &'static str,
}

macro_rules! count_unit {
    ($name:literal) => {
        Unit {
            scaled: [
                $name,
                concat!("k", $name),
                concat!("M", $name),
                concat!("G", $name),
            ],
            per_byte: concat!($name, "/byte"),
            per_element: concat!($name, "/element"),
        }
    };
}

static INSTRUCTIONS: Unit = count_unit!("inst");
static CYCLES: Unit = count_unit!("cycles");
static BRANCHES: Unit = count_unit!("branches");
static MISSES: Unit = count_unit!("misses");
static REFERENCES: Unit = count_unit!("refs");
static FAULTS: Unit = count_unit!("faults");
static SWITCHES: Unit = count_unit!("switches");
static MIGRATIONS: Unit = count_unit!("migrations");
static EVENTS: Unit = count_unit!("events");
static NANOSECONDS: Unit = Unit {
    scaled: ["ns", "µs", "ms", "s"],
    per_byte: "ns/byte",
    per_element: "ns/element",
};

impl Unit {
    /// The unit of an event, by its generic name (docs/events.md) or, failing that, its
    /// native name; "events" when neither says.
    pub(crate) fn of(name: &str, native_name: &str) -> &'static Unit {
        Self::by_name(name).unwrap_or_else(|| Self::by_name(native_name).unwrap_or(&EVENTS))
    }

    fn by_name(name: &str) -> Option<&'static Unit> {
        let upper = name.to_ascii_uppercase();
        Some(match name {
            "instructions" => &INSTRUCTIONS,
            "cycles" | "ref-cycles" | "stalled-cycles-frontend" | "stalled-cycles-backend" => {
                &CYCLES
            }
            "branches" => &BRANCHES,
            "cache-references" => &REFERENCES,
            "task-clock" | "cpu-clock" => &NANOSECONDS,
            "page-faults" | "minor-faults" | "major-faults" => &FAULTS,
            "context-switches" => &SWITCHES,
            "cpu-migrations" => &MIGRATIONS,
            _ if name.ends_with("-misses") => &MISSES,
            // Native names: FIXED_INSTRUCTIONS, INST_ALL, PERF_COUNT_HW_CPU_CYCLES, ...
            _ if upper.contains("MISS") || upper.contains("MISPRED") => &MISSES,
            _ if upper.contains("BRANCH") => &BRANCHES,
            _ if upper.contains("CYCLE") => &CYCLES,
            _ if upper.contains("INST") => &INSTRUCTIONS,
            _ if upper.contains("FAULT") => &FAULTS,
            _ => return None,
        })
    }
}

/// Criterion's [`ValueFormatter`] for one [`Unit`].
pub(crate) struct CountFormatter {
    pub(crate) unit: &'static Unit,
}

impl ValueFormatter for CountFormatter {
    fn scale_values(&self, typical_value: f64, values: &mut [f64]) -> &'static str {
        let (step, divisor) = match typical_value.abs() {
            v if v < 1e3 => (0, 1.0),
            v if v < 1e6 => (1, 1e3),
            v if v < 1e9 => (2, 1e6),
            _ => (3, 1e9),
        };
        for v in values.iter_mut() {
            *v /= divisor;
        }
        self.unit.scaled[step]
    }

    fn scale_throughputs(
        &self,
        _typical_value: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let (per, unit) = match *throughput {
            Throughput::Bytes(n) => (n, self.unit.per_byte),
            Throughput::Elements(n) => (n, self.unit.per_element),
        };
        for v in values.iter_mut() {
            *v /= per.max(1) as f64;
        }
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        self.unit.scaled[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(name: &str, native: &str, value: f64) -> String {
        CountFormatter {
            unit: Unit::of(name, native),
        }
        .format_value(value)
    }

    #[test]
    fn counts_scale_by_thousands_in_the_events_unit() {
        assert_eq!(format("page-faults", "", 64.0), "64.000 faults");
        assert_eq!(format("instructions", "", 12_345_678.0), "12.346 Minst");
        assert_eq!(format("cycles", "", 1_500.0), "1.5000 kcycles");
        assert_eq!(format("branch-misses", "", 2.5e9), "2.5000 Gmisses");
        assert_eq!(format("l1d-load-misses", "", 0.25), "0.2500 misses");
    }

    #[test]
    fn clocks_are_times() {
        assert_eq!(format("task-clock", "", 250.0), "250.00 ns");
        assert_eq!(format("task-clock", "", 1_250_000.0), "1.2500 ms");
    }

    #[test]
    fn native_names_and_unknown_events() {
        assert_eq!(
            Unit::of("FIXED_INSTRUCTIONS", "FIXED_INSTRUCTIONS"),
            &INSTRUCTIONS
        );
        assert_eq!(Unit::of("r003c", "PERF_COUNT_HW_CPU_CYCLES"), &CYCLES);
        assert_eq!(Unit::of("L1D_CACHE_MISS_LD_NONSPEC", ""), &MISSES);
        assert_eq!(Unit::of("BRANCH_MISPRED_NONSPEC", ""), &MISSES);
        assert_eq!(Unit::of("INST_BRANCH", ""), &BRANCHES);
        assert_eq!(Unit::of("r01c2", "r01c2"), &EVENTS);
    }

    #[test]
    fn throughput_is_per_byte_or_element() {
        let f = CountFormatter {
            unit: &INSTRUCTIONS,
        };
        let mut values = [4096.0];
        assert_eq!(
            f.scale_throughputs(4096.0, &Throughput::Bytes(1024), &mut values),
            "inst/byte"
        );
        assert_eq!(values, [4.0]);
        let mut values = [10.0];
        assert_eq!(
            f.scale_throughputs(10.0, &Throughput::Elements(0), &mut values),
            "inst/element"
        );
        assert_eq!(values, [10.0]);
        let mut values = [3.0e6];
        assert_eq!(f.scale_for_machines(&mut values), "inst");
        assert_eq!(values, [3.0e6]);
    }
}
