//! Reading the benchmark CSV files (header row, 0/1 or numeric features, label in the
//! last column) for Rust tests and benchmarks.

use crate::dataset::BinaryDataset;
use crate::error::{Error, Result};
use std::path::Path;

/// The feature cells (row-major, each read by `cell`), the class labels, and the numbers
/// of rows and columns of a CSV whose last column is the integer class label.
fn read_csv<T>(path: &Path, cell: impl Fn(&str) -> Option<T>, kind: &str) -> Result<(Vec<T>, Vec<u32>, usize, usize)> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = lines.next().ok_or_else(|| Error::new("empty CSV file"))?;
    let n_columns = header.split(',').count() - 1;
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (i, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != n_columns + 1 {
            return Err(Error::new(format!("line {} has {} cells", i + 2, cells.len())));
        }
        for c in &cells[..n_columns] {
            x.push(cell(c).ok_or_else(|| Error::new(format!("{kind} cell {c:?} on line {}", i + 2)))?);
        }
        let label: f64 = cells[n_columns]
            .parse()
            .map_err(|_| Error::new(format!("bad label {:?}", cells[n_columns])))?;
        if label < 0.0 || label.fract() != 0.0 {
            return Err(Error::new(format!("label {label} on line {} is not a class index", i + 2)));
        }
        y.push(label as u32);
    }
    let rows = y.len();
    Ok((x, y, rows, n_columns))
}

/// Number of classes of labels `0..=max`.
fn n_classes(y: &[u32]) -> usize {
    y.iter().max().map_or(1, |&m| m as usize + 1)
}

/// Reads a CSV of 0/1 features whose last column is the integer class label.
pub fn read_binary_csv(path: &Path) -> Result<BinaryDataset> {
    let (x, y, rows, columns) = read_csv(path, |c| c.parse::<u8>().ok().filter(|&v| v <= 1), "non 0/1")?;
    BinaryDataset::new(&x, rows, columns, &y, n_classes(&y), None)
}

/// Reads a CSV of numeric features whose last column is the integer class label: the
/// row-major values, the labels, and the numbers of rows and columns.
pub fn read_numeric_csv_values(path: &Path) -> Result<(Vec<f64>, Vec<u32>, usize, usize)> {
    read_csv(path, |c| c.parse::<f64>().ok(), "non-numeric")
}

/// Reads a CSV of numeric features whose last column is the integer class label.
pub fn read_numeric_csv(path: &Path) -> Result<crate::NumericDataset> {
    let (x, y, rows, columns) = read_numeric_csv_values(path)?;
    crate::NumericDataset::new(&x, rows, columns, &y, n_classes(&y), None)
}
