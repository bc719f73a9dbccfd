//! `locksim report`: the bug catalogue (`bugs`: each known-wrong knob as a scenario, with its
//! fix) and the matrix built from it (`matrix`: configuration x fault kind -> what a budget of
//! seeds violates), and the Redlock debate replayed on the catalogue (`walkthrough`), all
//! committed in `reports/`.

pub mod bugs;
pub mod matrix;
pub mod walkthrough;
