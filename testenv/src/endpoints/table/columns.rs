//! The columns and printers of built-in kinds, shared by the printer files.

use std::cmp::Ordering;

use serde_json::Value;

/// One column of a built-in printer.
#[derive(Clone, Copy)]
pub(super) struct Col {
    pub(super) name: &'static str,
    pub(super) type_: &'static str,
    pub(super) format: &'static str,
    pub(super) priority: i64,
}

/// A string column.
pub(super) const fn text(name: &'static str) -> Col {
    Col {
        name,
        type_: "string",
        format: "",
        priority: 0,
    }
}

/// An integer column.
pub(super) const fn int(name: &'static str) -> Col {
    Col {
        type_: "integer",
        ..text(name)
    }
}

/// A boolean column.
pub(super) const fn boolean(name: &'static str) -> Col {
    Col {
        type_: "boolean",
        ..text(name)
    }
}

/// A string column kubectl shows only with `-o wide`.
pub(super) const fn wide(name: &'static str) -> Col {
    Col {
        priority: 1,
        ..text(name)
    }
}

/// The Name column of every printer.
pub(super) const NAME: Col = Col {
    format: "name",
    ..text("Name")
};

/// The Age column of most printers.
pub(super) const AGE: Col = text("Age");

/// The printer of one built-in kind: its columns and how a row's cells are computed.
pub(super) struct Printer {
    pub(super) columns: Vec<Col>,
    pub(super) cells: fn(&Value) -> Vec<Value>,
    /// The row's `conditions` (pods that completed), if any.
    pub(super) conditions: fn(&Value) -> Option<Value>,
    /// The order a list's rows are printed in, when not the list's.
    pub(super) order: Option<fn(&Value, &Value) -> Ordering>,
    /// The metadata of a row's PartialObjectMetadata: the real server takes it from the
    /// stored object, which lacks the annotations some versions carry only when served.
    pub(super) metadata: fn(&Value) -> Value,
    /// Whether the cells are printed from the object as stored rather than as served.
    pub(super) prints_stored: bool,
}

impl Printer {
    pub(super) fn new(columns: &[Col], cells: fn(&Value) -> Vec<Value>) -> Self {
        Printer {
            columns: columns.to_vec(),
            cells,
            conditions: |_| None,
            order: None,
            metadata: |o| o["metadata"].clone(),
            prints_stored: false,
        }
    }
}
