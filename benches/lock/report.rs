//! The printed report: one table of runs, one table of the targets, notes.
//!
//! Sizes are decimal (1 MB = 10^6 bytes), like the bandwidth knob and the targets.

use std::fmt::Write as _;
use std::time::Duration;

/// One line of the runs table; `None` prints as `-`.
#[derive(Default)]
pub struct Row {
    pub label: String,
    pub wall: Option<Duration>,
    pub zip_bytes: Option<u64>,
    /// Zip bytes divided by the unique package bytes the run's roots need.
    pub bytes_ratio: Option<f64>,
    pub requests: Option<usize>,
    pub zips: Option<usize>,
    pub peak_rss: Option<u64>,
    pub status: String,
    pub roots: String,
}

/// What a scenario adds to the report: its rows, notes and targets, and whether every
/// run in it succeeded.
#[derive(Default)]
pub struct Outcome {
    pub rows: Vec<Row>,
    pub notes: Vec<String>,
    pub targets: Vec<Target>,
    pub ok: bool,
}

impl Outcome {
    /// A scenario's outcome before it has measured anything: nothing failed yet.
    pub fn passing() -> Outcome {
        Outcome {
            ok: true,
            ..Outcome::default()
        }
    }
}

/// One target of the issue, with what was measured.
pub struct Target {
    pub goal: &'static str,
    pub measured: String,
    /// `None`: not measured in this run.
    pub met: Option<bool>,
}

pub fn render(title: &str, rows: &[Row], targets: &[Target], notes: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "\n{title}\n");
    let header = [
        "run",
        "wall",
        "zip bytes",
        "/unique",
        "requests",
        "zips",
        "peak RSS",
        "status",
        "lock files",
    ];
    let cells: Vec<[String; 9]> = rows
        .iter()
        .map(|row| {
            [
                row.label.clone(),
                row.wall.map_or_else(dash, seconds),
                row.zip_bytes.map_or_else(dash, bytes),
                row.bytes_ratio.map_or_else(dash, |r| format!("{r:.2}")),
                row.requests.map_or_else(dash, |n| n.to_string()),
                row.zips.map_or_else(dash, |n| n.to_string()),
                row.peak_rss.map_or_else(dash, bytes),
                row.status.clone(),
                row.roots.clone(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for line in &cells {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    for (index, line) in std::iter::once(&header[..])
        .chain(cells.iter().map(|c| &c[..]))
        .enumerate()
    {
        let mut text = String::new();
        for (column, (cell, width)) in line.iter().zip(widths).enumerate() {
            let pad = width.saturating_sub(cell.chars().count());
            // Label left, figures right, status and roots left.
            if column == 0 || column >= 7 {
                let _ = write!(text, "{cell}{}  ", " ".repeat(pad));
            } else {
                let _ = write!(text, "{}{cell}  ", " ".repeat(pad));
            }
        }
        let _ = writeln!(out, "{}", text.trim_end());
        if index == 0 {
            let total: usize = widths.iter().sum::<usize>() + 2 * (widths.len() - 1);
            let _ = writeln!(out, "{}", "-".repeat(total));
        }
    }

    let _ = writeln!(out, "\ntargets\n");
    let goal_width = targets.iter().map(|t| t.goal.len()).max().unwrap_or(0);
    let measured_width = targets
        .iter()
        .map(|t| t.measured.chars().count())
        .max()
        .unwrap_or(0);
    for target in targets {
        let verdict = match target.met {
            Some(true) => "met",
            Some(false) => "MISSED",
            None => "not measured",
        };
        let pad = measured_width - target.measured.chars().count();
        let _ = writeln!(
            out,
            "  {:goal_width$}  {}{}  {verdict}",
            target.goal,
            target.measured,
            " ".repeat(pad)
        );
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "\nnotes\n");
        for note in notes {
            let _ = writeln!(out, "  - {note}");
        }
    }
    out
}

fn dash() -> String {
    "-".to_owned()
}

pub fn seconds(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs < 10.0 {
        format!("{secs:.3} s")
    } else {
        format!("{secs:.1} s")
    }
}

pub fn bytes(n: u64) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{:.2} GB", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.1} MB", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1} kB", n / 1e3)
    } else {
        format!("{n} B")
    }
}
