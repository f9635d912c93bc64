//! The node-level encoder of the MA-GCL base model (to be written).
