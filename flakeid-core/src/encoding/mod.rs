//! Text encodings of IDs (skeleton).
