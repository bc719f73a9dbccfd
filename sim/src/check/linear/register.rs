//! The sequential specifications the models' histories need: a read/write/compare-and-set
//! register (Jepsen's `cas-register`, Porcupine's register model), and any specification
//! applied per key ([`Keyed`]), which is how a key-value store is checked one register at a
//! time.

use std::hash::Hash;
use std::marker::PhantomData;

use super::Spec;

/// A register operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegisterIn<V> {
    Read,
    Write(V),
    /// Set to `to` if the value is `from`.
    Cas {
        from: V,
        to: V,
    },
}

/// What a register operation returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegisterOut<V> {
    /// The value read; `None`: never written.
    Read(Option<V>),
    Written,
    /// Whether the compare-and-set found `from` and wrote `to`.
    Cas(bool),
}

/// One register, `None` until first written (Jepsen's `nil`).
pub struct Register<V>(PhantomData<V>);

impl<V> Register<V> {
    pub const fn new() -> Self {
        Register(PhantomData)
    }
}

impl<V> Default for Register<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Clone + Eq + Hash> Spec for Register<V> {
    type State = Option<V>;
    type Input = RegisterIn<V>;
    type Output = RegisterOut<V>;
    type Key = ();

    fn init(&self) -> Option<V> {
        None
    }

    fn key(&self, _input: &RegisterIn<V>) {}

    fn step(&self, state: &Option<V>, input: &RegisterIn<V>, output: Option<&RegisterOut<V>>) -> Option<Option<V>> {
        match (input, output) {
            (RegisterIn::Read, None) => Some(state.clone()),
            (RegisterIn::Read, Some(RegisterOut::Read(v))) => (v == state).then(|| state.clone()),
            (RegisterIn::Write(v), None | Some(RegisterOut::Written)) => Some(Some(v.clone())),
            (RegisterIn::Cas { from, to }, out) => {
                let hit = state.as_ref() == Some(from);
                match out {
                    None => Some(if hit { Some(to.clone()) } else { state.clone() }),
                    Some(RegisterOut::Cas(true)) if hit => Some(Some(to.clone())),
                    Some(RegisterOut::Cas(false)) if !hit => Some(state.clone()),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// `S` applied to each key alone: the input is `(key, S's input)`, and a history splits into
/// one `S` history per key (P-compositionality).
pub struct Keyed<K, S> {
    pub spec: S,
    key: PhantomData<K>,
}

impl<K, S> Keyed<K, S> {
    pub const fn new(spec: S) -> Self {
        Keyed { spec, key: PhantomData }
    }
}

impl<K: Ord + Clone, S: Spec> Spec for Keyed<K, S> {
    type State = S::State;
    type Input = (K, S::Input);
    type Output = S::Output;
    type Key = K;

    fn init(&self) -> S::State {
        self.spec.init()
    }

    fn key(&self, input: &(K, S::Input)) -> K {
        input.0.clone()
    }

    fn step(&self, state: &S::State, input: &(K, S::Input), output: Option<&S::Output>) -> Option<S::State> {
        self.spec.step(state, &input.1, output)
    }
}
