//! A small, safe reader for Python pickles (protocols 0–5, the opcodes that data pickles
//! use). It never executes anything: `GLOBAL` names become [`Obj::Global`] values, and
//! calls (`REDUCE`, `NEWOBJ`) and `BUILD` become [`Obj::Object`] records of what would have
//! been called, so that the caller can interpret numpy arrays, scipy matrices and
//! `collections.defaultdict` by their class names.
//!
//! Objects live in an arena and the stack holds [`Value`]s that point into it, so the
//! memo keeps Python's sharing semantics (a list stored with `BINPUT` and then filled by
//! `APPENDS` is the same list when fetched with `BINGET`). Every count is bounded by the
//! input length; malformed input is an error naming the byte offset, never a panic.
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

/// A value on the pickle stack.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A Python 2 `str` or a Python 3 `bytes`.
    Bytes(std::rc::Rc<[u8]>),
    /// A Python 3 `str` (Python 2 `unicode`).
    Str(std::rc::Rc<str>),
    /// An object in the arena.
    Ref(usize),
}

/// A container or opaque object in the arena.
#[derive(Clone, Debug, PartialEq)]
pub enum Obj {
    List(Vec<Value>),
    Tuple(Vec<Value>),
    Dict(Vec<(Value, Value)>),
    Global {
        module: String,
        name: String,
    },
    /// The result of calling `callable(*args)` (`REDUCE`) or `cls.__new__(cls, *args)`
    /// (`NEWOBJ`), with what `BUILD`, `SETITEMS` and `APPENDS` added afterwards.
    Object {
        callable: Value,
        /// The argument tuple (a [`Value::Ref`] to an [`Obj::Tuple`]); see [`Pickle::args`].
        args: Value,
        state: Option<Value>,
        items: Vec<(Value, Value)>,
        list_items: Vec<Value>,
    },
}

/// A decoded pickle: the arena and the root value.
#[derive(Clone, Debug, Default)]
pub struct Pickle {
    pub objects: Vec<Obj>,
    pub root: Option<Value>,
}

/// Nesting depth followed when walking values (cycles and deep nests end here).
pub const MAX_DEPTH: usize = 64;

impl Pickle {
    pub fn root(&self) -> &Value {
        self.root.as_ref().unwrap_or(&Value::None)
    }

    pub fn obj(&self, v: &Value) -> Option<&Obj> {
        match v {
            Value::Ref(i) => self.objects.get(*i),
            _ => None,
        }
    }

    /// Items of a tuple or list.
    pub fn seq(&self, v: &Value) -> Option<&[Value]> {
        match self.obj(v)? {
            Obj::Tuple(t) | Obj::List(t) => Some(t),
            _ => None,
        }
    }

    /// Key/value pairs of a dict, or of an object that received `SETITEMS`
    /// (e.g. `collections.defaultdict`).
    pub fn dict_items(&self, v: &Value) -> Option<&[(Value, Value)]> {
        match self.obj(v)? {
            Obj::Dict(d) => Some(d),
            Obj::Object { items, .. } => Some(items),
            _ => None,
        }
    }

    /// Looks a string key up in a dict (keys may be `str` or `bytes`; the last one wins).
    pub fn get<'a>(&'a self, dict: &Value, key: &str) -> Option<&'a Value> {
        self.dict_items(dict)?
            .iter()
            .rev()
            .find(|(k, _)| self.text(k) == Some(key))
            .map(|(_, v)| v)
    }

    /// A `str` or ASCII/UTF-8 `bytes` value as text.
    pub fn text<'a>(&self, v: &'a Value) -> Option<&'a str> {
        match v {
            Value::Str(s) => Some(s),
            Value::Bytes(b) => std::str::from_utf8(b).ok(),
            _ => None,
        }
    }

    /// `module.name` of a global, or of the callable that made an object (followed
    /// through at most [`MAX_DEPTH`] calls).
    pub fn class_name(&self, v: &Value) -> Option<String> {
        let mut v = v;
        for _ in 0..MAX_DEPTH {
            match self.obj(v)? {
                Obj::Global { module, name } => return Some(format!("{module}.{name}")),
                Obj::Object { callable, .. } => v = callable,
                _ => return None,
            }
        }
        None
    }

    /// The call arguments of an object made by `REDUCE`/`NEWOBJ` (empty otherwise).
    pub fn args(&self, v: &Value) -> &[Value] {
        match self.obj(v) {
            Some(Obj::Object { args, .. }) => self.seq(args).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// A reader over the input bytes.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.data.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn i32(&mut self) -> Option<i32> {
        self.u32().map(|v| v as i32)
    }
    fn u64(&mut self) -> Option<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Some(u64::from_le_bytes(a))
    }
    /// A newline-terminated line (protocol 0 arguments), without the newline.
    fn line(&mut self) -> Option<&'a [u8]> {
        let rest = self.data.get(self.pos..)?;
        let n = rest.iter().position(|&b| b == b'\n')?;
        self.pos += n + 1;
        Some(&rest[..n])
    }
}

struct Machine<'p> {
    path: &'p Path,
    objects: Vec<Obj>,
    stack: Vec<Value>,
    marks: Vec<usize>,
    memo: HashMap<u64, Value>,
}

impl Machine<'_> {
    fn err(&self, pos: usize, msg: impl std::fmt::Display) -> Error {
        Error::file(self.path, format!("corrupt pickle at byte {pos}: {msg}"))
    }
    fn alloc(&mut self, o: Obj) -> Value {
        self.objects.push(o);
        Value::Ref(self.objects.len() - 1)
    }
    fn pop(&mut self, pos: usize) -> Result<Value> {
        let floor = self.marks.last().copied().unwrap_or(0);
        if self.stack.len() <= floor {
            return Err(self.err(pos, "stack underflow"));
        }
        self.stack
            .pop()
            .ok_or_else(|| self.err(pos, "stack underflow"))
    }
    fn top(&self, pos: usize) -> Result<Value> {
        let floor = self.marks.last().copied().unwrap_or(0);
        if self.stack.len() <= floor {
            return Err(self.err(pos, "stack underflow"));
        }
        self.stack
            .last()
            .cloned()
            .ok_or_else(|| self.err(pos, "stack underflow"))
    }
    /// Pops everything above the last mark, and the mark.
    fn pop_mark(&mut self, pos: usize) -> Result<Vec<Value>> {
        let m = self
            .marks
            .pop()
            .ok_or_else(|| self.err(pos, "no MARK before this opcode"))?;
        if m > self.stack.len() {
            return Err(self.err(pos, "MARK beyond stack"));
        }
        Ok(self.stack.split_off(m))
    }
    fn append(&mut self, pos: usize, target: &Value, items: Vec<Value>) -> Result<()> {
        let idx = match target {
            Value::Ref(i) => *i,
            _ => return Err(self.err(pos, "APPEND to a non-list")),
        };
        match self.objects.get_mut(idx) {
            Some(Obj::List(l)) => l.extend(items),
            Some(Obj::Object { list_items, .. }) => list_items.extend(items),
            _ => return Err(self.err(pos, "APPEND to a non-list")),
        }
        Ok(())
    }
    fn set_items(&mut self, pos: usize, target: &Value, kv: Vec<Value>) -> Result<()> {
        if !kv.len().is_multiple_of(2) {
            return Err(self.err(pos, "SETITEMS with an odd number of items"));
        }
        let idx = match target {
            Value::Ref(i) => *i,
            _ => return Err(self.err(pos, "SETITEM on a non-dict")),
        };
        let mut pairs = Vec::with_capacity(kv.len() / 2);
        let mut it = kv.into_iter();
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            pairs.push((k, v));
        }
        match self.objects.get_mut(idx) {
            // A repeated key is kept twice; readers take the last (Python semantics).
            Some(Obj::Dict(d)) | Some(Obj::Object { items: d, .. }) => d.extend(pairs),
            _ => return Err(self.err(pos, "SETITEM on a non-dict")),
        }
        Ok(())
    }
}

/// Decodes a protocol-0 string literal (`'...'` with backslash escapes) loosely: the quotes
/// are removed and common escapes are decoded.
fn unquote(s: &[u8]) -> Option<Vec<u8>> {
    let q = *s.first()?;
    if (q != b'\'' && q != b'"') || s.len() < 2 || *s.last()? != q {
        return None;
    }
    let inner = &s[1..s.len() - 1];
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let c = inner[i];
        if c == b'\\' && i + 1 < inner.len() {
            let e = inner[i + 1];
            i += 2;
            match e {
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'r' => out.push(b'\r'),
                b'\\' => out.push(b'\\'),
                b'\'' => out.push(b'\''),
                b'"' => out.push(b'"'),
                b'x' => {
                    let h = inner.get(i..i + 2)?;
                    let v = u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()?;
                    out.push(v);
                    i += 2;
                }
                _ => {
                    out.push(b'\\');
                    out.push(e);
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    Some(out)
}

/// Little-endian two's-complement integer of up to 8 bytes (`LONG1`/`LONG4`).
fn long_le(bytes: &[u8]) -> Option<i64> {
    if bytes.is_empty() {
        return Some(0);
    }
    if bytes.len() > 8 {
        // Accept redundant sign-extension bytes only.
        let (low, high) = bytes.split_at(8);
        let neg = low[7] & 0x80 != 0;
        let fill = if neg { 0xFF } else { 0x00 };
        if high.iter().any(|&b| b != fill) {
            return None;
        }
        return long_le(low);
    }
    let neg = bytes[bytes.len() - 1] & 0x80 != 0;
    let mut buf = if neg { [0xFFu8; 8] } else { [0u8; 8] };
    buf[..bytes.len()].copy_from_slice(bytes);
    Some(i64::from_le_bytes(buf))
}

/// Parses a pickle from bytes. `path` only names the source in error messages.
pub fn parse(path: &Path, data: &[u8]) -> Result<Pickle> {
    let mut m = Machine {
        path,
        objects: Vec::new(),
        stack: Vec::new(),
        marks: Vec::new(),
        memo: HashMap::new(),
    };
    let mut r = Reader { data, pos: 0 };
    loop {
        let pos = r.pos;
        let eof = |m: &Machine| m.err(pos, "unexpected end of data (truncated file?)");
        let op = r.u8().ok_or_else(|| eof(&m))?;
        match op {
            // PROTO
            0x80 => {
                let v = r.u8().ok_or_else(|| eof(&m))?;
                if v > 5 {
                    return Err(m.err(pos, format!("unsupported protocol {v}")));
                }
            }
            // FRAME
            0x95 => {
                r.u64().ok_or_else(|| eof(&m))?;
            }
            // STOP
            b'.' => {
                let root = m.pop(pos)?;
                return Ok(Pickle {
                    objects: m.objects,
                    root: Some(root),
                });
            }
            b'(' => m.marks.push(m.stack.len()),
            b'0' => {
                m.pop(pos)?;
            }
            b'1' => {
                m.pop_mark(pos)?;
            }
            b'2' => {
                let v = m.top(pos)?;
                m.stack.push(v);
            }
            b'N' => m.stack.push(Value::None),
            0x88 => m.stack.push(Value::Bool(true)),
            0x89 => m.stack.push(Value::Bool(false)),
            // BININT, BININT1, BININT2
            b'J' => {
                let v = r.i32().ok_or_else(|| eof(&m))?;
                m.stack.push(Value::Int(i64::from(v)));
            }
            b'K' => {
                let v = r.u8().ok_or_else(|| eof(&m))?;
                m.stack.push(Value::Int(i64::from(v)));
            }
            b'M' => {
                let v = r.u16().ok_or_else(|| eof(&m))?;
                m.stack.push(Value::Int(i64::from(v)));
            }
            // INT, LONG (text)
            b'I' | b'L' => {
                let line = r.line().ok_or_else(|| eof(&m))?;
                let s = std::str::from_utf8(line).map_err(|_| m.err(pos, "bad INT"))?;
                let s = s.trim_end_matches('L');
                let v = match s {
                    "01" => Value::Bool(true),
                    "00" => Value::Bool(false),
                    _ => Value::Int(
                        s.parse()
                            .map_err(|_| m.err(pos, format!("bad integer literal {s:?}")))?,
                    ),
                };
                m.stack.push(v);
            }
            // LONG1, LONG4
            0x8a | 0x8b => {
                let n = if op == 0x8a {
                    usize::from(r.u8().ok_or_else(|| eof(&m))?)
                } else {
                    let n = r.i32().ok_or_else(|| eof(&m))?;
                    usize::try_from(n).map_err(|_| m.err(pos, "negative LONG4 length"))?
                };
                let b = r.take(n).ok_or_else(|| eof(&m))?;
                let v = long_le(b).ok_or_else(|| m.err(pos, "integer too large"))?;
                m.stack.push(Value::Int(v));
            }
            // FLOAT (text), BINFLOAT
            b'F' => {
                let line = r.line().ok_or_else(|| eof(&m))?;
                let v: f64 = std::str::from_utf8(line)
                    .ok()
                    .and_then(|s| s.trim().parse().ok())
                    .ok_or_else(|| m.err(pos, "bad FLOAT"))?;
                m.stack.push(Value::Float(v));
            }
            b'G' => {
                let v = r.u64().ok_or_else(|| eof(&m))?;
                m.stack.push(Value::Float(f64::from_bits(u64::from_be(v))));
            }
            // STRING (text)
            b'S' => {
                let line = r.line().ok_or_else(|| eof(&m))?;
                let b = unquote(line).ok_or_else(|| m.err(pos, "bad STRING literal"))?;
                m.stack.push(Value::Bytes(b.into()));
            }
            // BINSTRING, SHORT_BINSTRING, BINBYTES, SHORT_BINBYTES, BINBYTES8, BYTEARRAY8
            b'T' | b'U' | b'B' | b'C' | 0x8e | 0x96 => {
                let n = match op {
                    b'U' | b'C' => usize::from(r.u8().ok_or_else(|| eof(&m))?),
                    b'T' => {
                        let n = r.i32().ok_or_else(|| eof(&m))?;
                        usize::try_from(n).map_err(|_| m.err(pos, "negative string length"))?
                    }
                    b'B' => r.u32().ok_or_else(|| eof(&m))? as usize,
                    _ => usize::try_from(r.u64().ok_or_else(|| eof(&m))?)
                        .map_err(|_| m.err(pos, "length too large"))?,
                };
                let b = r.take(n).ok_or_else(|| eof(&m))?;
                m.stack.push(Value::Bytes(b.into()));
            }
            // UNICODE (text, raw-unicode-escape; accepted as UTF-8)
            b'V' => {
                let line = r.line().ok_or_else(|| eof(&m))?;
                let s = String::from_utf8_lossy(line);
                m.stack.push(Value::Str(s.as_ref().into()));
            }
            // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8
            b'X' | 0x8c | 0x8d => {
                let n = match op {
                    0x8c => usize::from(r.u8().ok_or_else(|| eof(&m))?),
                    b'X' => r.u32().ok_or_else(|| eof(&m))? as usize,
                    _ => usize::try_from(r.u64().ok_or_else(|| eof(&m))?)
                        .map_err(|_| m.err(pos, "length too large"))?,
                };
                let b = r.take(n).ok_or_else(|| eof(&m))?;
                let s = std::str::from_utf8(b).map_err(|_| m.err(pos, "invalid UTF-8"))?;
                m.stack.push(Value::Str(s.into()));
            }
            // EMPTY_TUPLE, TUPLE, TUPLE1..3
            b')' => {
                let v = m.alloc(Obj::Tuple(Vec::new()));
                m.stack.push(v);
            }
            b't' => {
                let items = m.pop_mark(pos)?;
                let v = m.alloc(Obj::Tuple(items));
                m.stack.push(v);
            }
            0x85..=0x87 => {
                let n = usize::from(op - 0x84);
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(m.pop(pos)?);
                }
                items.reverse();
                let v = m.alloc(Obj::Tuple(items));
                m.stack.push(v);
            }
            // EMPTY_LIST, LIST, EMPTY_DICT, DICT, EMPTY_SET, FROZENSET
            b']' => {
                let v = m.alloc(Obj::List(Vec::new()));
                m.stack.push(v);
            }
            b'l' => {
                let items = m.pop_mark(pos)?;
                let v = m.alloc(Obj::List(items));
                m.stack.push(v);
            }
            b'}' => {
                let v = m.alloc(Obj::Dict(Vec::new()));
                m.stack.push(v);
            }
            b'd' => {
                let kv = m.pop_mark(pos)?;
                let v = m.alloc(Obj::Dict(Vec::new()));
                m.set_items(pos, &v, kv)?;
                m.stack.push(v);
            }
            0x8f => {
                let v = m.alloc(Obj::List(Vec::new()));
                m.stack.push(v);
            }
            0x91 => {
                let items = m.pop_mark(pos)?;
                let v = m.alloc(Obj::List(items));
                m.stack.push(v);
            }
            // APPEND, APPENDS, ADDITEMS
            b'a' => {
                let item = m.pop(pos)?;
                let target = m.top(pos)?;
                m.append(pos, &target, vec![item])?;
            }
            b'e' | 0x90 => {
                let items = m.pop_mark(pos)?;
                let target = m.top(pos)?;
                m.append(pos, &target, items)?;
            }
            // SETITEM, SETITEMS
            b's' => {
                let v = m.pop(pos)?;
                let k = m.pop(pos)?;
                let target = m.top(pos)?;
                m.set_items(pos, &target, vec![k, v])?;
            }
            b'u' => {
                let kv = m.pop_mark(pos)?;
                let target = m.top(pos)?;
                m.set_items(pos, &target, kv)?;
            }
            // GLOBAL, STACK_GLOBAL
            b'c' => {
                let module = r.line().ok_or_else(|| eof(&m))?;
                let name = r.line().ok_or_else(|| eof(&m))?;
                let v = m.alloc(Obj::Global {
                    module: String::from_utf8_lossy(module).into_owned(),
                    name: String::from_utf8_lossy(name).into_owned(),
                });
                m.stack.push(v);
            }
            0x93 => {
                let name = m.pop(pos)?;
                let module = m.pop(pos)?;
                let (Value::Str(module), Value::Str(name)) = (module, name) else {
                    return Err(m.err(pos, "STACK_GLOBAL needs two strings"));
                };
                let v = m.alloc(Obj::Global {
                    module: module.to_string(),
                    name: name.to_string(),
                });
                m.stack.push(v);
            }
            // REDUCE, NEWOBJ, NEWOBJ_EX
            b'R' | 0x81 | 0x92 => {
                if op == 0x92 {
                    m.pop(pos)?; // kwargs
                }
                let args = m.pop(pos)?;
                let callable = m.pop(pos)?;
                let is_tuple = match &args {
                    Value::Ref(i) => matches!(m.objects.get(*i), Some(Obj::Tuple(_))),
                    _ => false,
                };
                if !is_tuple {
                    return Err(m.err(pos, "call arguments are not a tuple"));
                }
                let v = m.alloc(Obj::Object {
                    callable,
                    args,
                    state: None,
                    items: Vec::new(),
                    list_items: Vec::new(),
                });
                m.stack.push(v);
            }
            // BUILD
            b'b' => {
                let state = m.pop(pos)?;
                let target = m.top(pos)?;
                match target {
                    Value::Ref(i) => match m.objects.get_mut(i) {
                        Some(Obj::Object { state: s, .. }) => *s = Some(state),
                        _ => return Err(m.err(pos, "BUILD on a non-object")),
                    },
                    _ => return Err(m.err(pos, "BUILD on a non-object")),
                }
            }
            // PUT, BINPUT, LONG_BINPUT, MEMOIZE
            b'p' | b'q' | b'r' | 0x94 => {
                let key = match op {
                    b'p' => {
                        let line = r.line().ok_or_else(|| eof(&m))?;
                        std::str::from_utf8(line)
                            .ok()
                            .and_then(|s| s.parse::<u64>().ok())
                            .ok_or_else(|| m.err(pos, "bad PUT index"))?
                    }
                    b'q' => u64::from(r.u8().ok_or_else(|| eof(&m))?),
                    b'r' => u64::from(r.u32().ok_or_else(|| eof(&m))?),
                    _ => m.memo.len() as u64,
                };
                let v = m.top(pos)?;
                m.memo.insert(key, v);
            }
            // GET, BINGET, LONG_BINGET
            b'g' | b'h' | b'j' => {
                let key = match op {
                    b'g' => {
                        let line = r.line().ok_or_else(|| eof(&m))?;
                        std::str::from_utf8(line)
                            .ok()
                            .and_then(|s| s.parse::<u64>().ok())
                            .ok_or_else(|| m.err(pos, "bad GET index"))?
                    }
                    b'h' => u64::from(r.u8().ok_or_else(|| eof(&m))?),
                    _ => u64::from(r.u32().ok_or_else(|| eof(&m))?),
                };
                let v = m
                    .memo
                    .get(&key)
                    .cloned()
                    .ok_or_else(|| m.err(pos, format!("memo entry {key} was never stored")))?;
                m.stack.push(v);
            }
            other => {
                return Err(m.err(pos, format!("unsupported opcode 0x{other:02x}")));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(b: &[u8]) -> Result<Pickle> {
        parse(Path::new("t.pkl"), b)
    }

    #[test]
    fn memo_shares_lists() {
        // [] BINPUT 0, MARK 1 2 APPENDS, BINGET 0, TUPLE2, STOP  → ([1, 2], [1, 2])
        let bytes = b"\x80\x02]q\x00(K\x01K\x02eh\x00\x86.";
        let pk = p(bytes).unwrap();
        let items = pk.seq(pk.root()).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0], items[1]);
        assert_eq!(
            pk.seq(&items[0]).unwrap(),
            &[Value::Int(1), Value::Int(2)][..]
        );
    }

    #[test]
    fn defaultdict_items() {
        // collections.defaultdict(list) with {0: [5]}
        let bytes = b"\x80\x02ccollections\ndefaultdict\nc__builtin__\nlist\n\x85R(K\x00]K\x05aJ\xff\xff\xff\xff]u.";
        let pk = p(bytes).unwrap();
        assert_eq!(
            pk.class_name(pk.root()).as_deref(),
            Some("collections.defaultdict")
        );
        let items = pk.dict_items(pk.root()).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].0, Value::Int(0));
        assert_eq!(pk.seq(&items[0].1).unwrap(), &[Value::Int(5)][..]);
        assert_eq!(items[1].0, Value::Int(-1));
    }

    #[test]
    fn errors_not_panics() {
        for bad in [
            &b""[..],
            b"\x80",
            b"\x80\x02.",
            b"a",
            b"(t(e.",
            b"K\x01b.",
            b"h\x05.",
            b"T\xff\xff\xff\xff",
            b"\x8a\x09\x01\x01\x01\x01\x01\x01\x01\x01\x01.",
        ] {
            let e = p(bad).unwrap_err().to_string();
            assert!(e.starts_with("t.pkl: corrupt pickle at byte"), "{e}");
        }
    }

    #[test]
    fn deep_call_chains_end() {
        // N ) R repeated: each object's callable is the previous object.
        let mut bytes = b"\x80\x02N".to_vec();
        for _ in 0..100_000 {
            bytes.extend_from_slice(b")R");
        }
        bytes.push(b'.');
        let pk = p(&bytes).unwrap();
        assert_eq!(pk.class_name(pk.root()), None);
        assert!(pk.args(pk.root()).is_empty());
    }

    #[test]
    fn long_values() {
        assert_eq!(long_le(&[0xff]), Some(-1));
        assert_eq!(long_le(&[0x00, 0x01]), Some(256));
        assert_eq!(long_le(&[0xff; 9]), Some(-1));
        assert_eq!(long_le(&[0, 0, 0, 0, 0, 0, 0, 0, 1]), None);
    }
}
