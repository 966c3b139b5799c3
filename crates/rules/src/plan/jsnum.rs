//! `String(x) === text` for a double, decided without formatting the double.
//!
//! The SDK converts a numeric string only when `String(Number(s)) === s`. Rust's float formatting would
//! answer that directly but costs about 11 KB of gzipped wasm, so the check is done the other way round:
//! read `text` as the significant digits `D` (k of them) and the decimal exponent `n` (value
//! `0.D × 10^n`), and accept it when
//!
//! 1. `text` is exactly the layout `Number::toString` gives those digits (ECMA-262 §6.1.6.1.20: plain
//!    digits up to `n = 21`, `0.000ddd` down to `n = -5`, `d.ddde±N` otherwise; no leading or trailing
//!    zeros), and
//! 2. `D × 10^(n−k)` rounds to `x` (`str::parse` is correctly rounded, and parsing is linked anyway), and
//! 3. no decimal with fewer digits rounds to `x` (shortest), and
//! 4. no other k-digit decimal that rounds to `x` is nearer to it, a tie going to the even digit
//!    (V8 prints the closest shortest digits and breaks exact ties towards even; Node prints
//!    `1125899906842624.2` for 2^50 + 0.25).
//!
//! Steps 3 and 4 only need the decimal neighbours of `D`: a shorter decimal inside `x`'s rounding
//! interval would put one of the two multiples of `10^(n−k+1)` around `D × 10^(n−k)` inside it, and a
//! nearer k-digit one would be `D ± 1`. Whether a neighbour rounds to `x` is again a parse; only the
//! final "which is nearer" needs exact arithmetic, done on a small bignum.

use std::cmp::Ordering;

/// More significant digits than V8's shortest form can ever have (17 suffice for every double).
const MAX_DIGITS: usize = 17;

/// `String(x) === text`, JavaScript's `Number::toString` for any double (`NaN`, `Infinity`, `-0` → `"0"`).
pub fn js_number_prints_as(x: f64, text: &str) -> bool {
    if x.is_nan() {
        return text == "NaN";
    }
    if x == 0.0 {
        return text == "0";
    }
    let (x, text) = if x < 0.0 {
        match text.strip_prefix('-') {
            Some(rest) => (-x, rest),
            None => return false,
        }
    } else {
        (x, text)
    };
    if x.is_infinite() {
        return text == "Infinity";
    }
    let Some(d) = Decimal::read_canonical(text) else {
        return false;
    };
    rounds_to(text, x) && d.is_shortest_for(x) && d.is_closest_for(x)
}

/// A positive decimal `digits × 10^(n − k)` with `k` significant digits, the last one non-zero.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Decimal {
    digits: u64,
    k: i32,
    n: i32,
}

impl Decimal {
    /// The decimal `text` spells, if `text` is exactly how JavaScript prints a positive number with
    /// those digits. Leading zeros, trailing fractional zeros, a wrong notation or a stray character
    /// all make the re-rendered text differ.
    fn read_canonical(text: &str) -> Option<Decimal> {
        let (mantissa, exp) = match text.split_once('e') {
            Some((m, e)) => (m, read_exponent(e)?),
            None => (text, 0),
        };
        let mut sig: Vec<u8> = Vec::with_capacity(MAX_DIGITS + 1);
        let mut total = 0i32;
        let mut leading_zeros = 0i32;
        let mut point = None;
        for b in mantissa.bytes() {
            match b {
                b'.' if point.is_none() => point = Some(total),
                b'0'..=b'9' => {
                    total += 1;
                    if sig.is_empty() && b == b'0' {
                        leading_zeros += 1;
                    } else {
                        sig.push(b);
                    }
                }
                _ => return None,
            }
            // A 22-digit mantissa can only be canonical if the tail is zeros; longer cannot be at all.
            if total > 40 {
                return None;
            }
        }
        while sig.last() == Some(&b'0') {
            sig.pop();
        }
        if sig.is_empty() || sig.len() > MAX_DIGITS {
            return None;
        }
        let n = point.unwrap_or(total) - leading_zeros + exp;
        if render(&sig, n) != text {
            return None;
        }
        let digits = sig
            .iter()
            .fold(0u64, |acc, b| acc * 10 + u64::from(b - b'0'));
        Some(Decimal {
            digits,
            k: i32::try_from(sig.len()).ok()?,
            n,
        })
    }

    /// No decimal with fewer significant digits rounds to `x`.
    fn is_shortest_for(self, x: f64) -> bool {
        if self.k < 2 {
            return true;
        }
        // The two multiples of the (k−1)-digit grid that bracket this decimal.
        let below = self.digits / 10;
        let grid = self.n - self.k + 1;
        !rounds_to(&sci(below, grid), x) && !rounds_to(&sci(below + 1, grid), x)
    }

    /// No other k-digit decimal rounding to `x` is nearer to it (exact ties go to an even last digit).
    fn is_closest_for(self, x: f64) -> bool {
        let h = self.n - self.k;
        let even = self.digits % 2 == 0;
        let up = sci(self.digits + 1, h);
        if rounds_to(&up, x) {
            match cmp_exact(x, self.digits * 10 + 5, h - 1) {
                Ordering::Less => {}
                Ordering::Equal if even => {}
                _ => return false,
            }
        }
        // Below a lone leading 1 the k-digit grid is ten times finer: the neighbour is 0.9 of it.
        let (down, mid, mid_exp) = if self.k == 1 && self.digits == 1 {
            (sci(9, h - 1), 95, h - 2)
        } else {
            (sci(self.digits - 1, h), self.digits * 10 - 5, h - 1)
        };
        if rounds_to(&down, x) {
            match cmp_exact(x, mid, mid_exp) {
                Ordering::Greater => {}
                Ordering::Equal if even => {}
                _ => return false,
            }
        }
        true
    }
}

/// The exponent after `e`: JavaScript always writes a sign and never a leading zero.
fn read_exponent(e: &str) -> Option<i32> {
    let (negative, digits) = match e.as_bytes().first() {
        Some(b'+') => (false, e.get(1..)?),
        Some(b'-') => (true, e.get(1..)?),
        _ => return None,
    };
    if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v = digits
        .bytes()
        .fold(0i32, |acc, b| acc * 10 + i32::from(b - b'0'));
    Some(if negative { -v } else { v })
}

/// `Number::toString`'s layout of the significant digits `sig` (ASCII, first and last non-zero) with
/// decimal exponent `n`.
fn render(sig: &[u8], n: i32) -> String {
    let k = i32::try_from(sig.len()).unwrap_or(i32::MAX);
    let mut out = String::with_capacity(sig.len() + 28);
    let push_digits = |out: &mut String, part: Option<&[u8]>| {
        out.extend(part.unwrap_or(&[]).iter().map(|&b| char::from(b)));
    };
    let zeros = |out: &mut String, count: i32| {
        for _ in 0..count {
            out.push('0');
        }
    };
    if k <= n && n <= 21 {
        push_digits(&mut out, Some(sig));
        zeros(&mut out, n - k);
    } else if 0 < n && n <= 21 {
        let split = usize::try_from(n).unwrap_or(0);
        push_digits(&mut out, sig.get(..split));
        out.push('.');
        push_digits(&mut out, sig.get(split..));
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        zeros(&mut out, -n);
        push_digits(&mut out, Some(sig));
    } else {
        push_digits(&mut out, sig.get(..1));
        if k > 1 {
            out.push('.');
            push_digits(&mut out, sig.get(1..));
        }
        out.push('e');
        out.push(if n - 1 < 0 { '-' } else { '+' });
        out.push_str(&(n - 1).unsigned_abs().to_string());
    }
    out
}

/// `"<digits>e<exp>"`, a form `str::parse::<f64>` reads.
fn sci(digits: u64, exp: i32) -> String {
    let mut s = digits.to_string();
    s.push('e');
    s.push_str(&exp.to_string());
    s
}

/// Whether the decimal `text` reads as exactly `x` (correct rounding, ties to even, as `Number()`).
fn rounds_to(text: &str, x: f64) -> bool {
    text.parse::<f64>() == Ok(x)
}

/// Compares the positive finite `x` with `m × 10^q` exactly.
fn cmp_exact(x: f64, m: u64, q: i32) -> Ordering {
    let bits = x.to_bits();
    let biased = i32::try_from((bits >> 52) & 0x7ff).unwrap_or(0);
    let fraction = bits & ((1u64 << 52) - 1);
    let (mantissa, e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    // mantissa × 2^e  vs  m × 5^q × 2^q: move every factor to the side where it is a multiplier.
    let mut left = Big::from_u64(mantissa);
    let mut right = Big::from_u64(m);
    if q >= 0 {
        right.mul_pow5(q.unsigned_abs());
    } else {
        left.mul_pow5(q.unsigned_abs());
    }
    let shift = e - q;
    if shift >= 0 {
        left.shl(shift.unsigned_abs());
    } else {
        right.shl(shift.unsigned_abs());
    }
    left.cmp(&right)
}

/// An unsigned integer as little-endian 32-bit limbs; just what [`cmp_exact`] needs.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        // Splitting a u64 into its two 32-bit halves: the truncations are the point.
        Big(vec![v as u32, (v >> 32) as u32])
    }

    fn mul_small(&mut self, f: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let p = u64::from(*limb) * u64::from(f) + carry;
            *limb = p as u32;
            carry = p >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow5(&mut self, mut k: u32) {
        // 5^13 is the largest power of five below 2^32.
        while k >= 13 {
            self.mul_small(1_220_703_125);
            k -= 13;
        }
        self.mul_small(5u32.pow(k));
    }

    fn shl(&mut self, bits: u32) {
        let limbs = usize::try_from(bits / 32).unwrap_or(0);
        let s = bits % 32;
        let mut out = vec![0u32; limbs];
        out.reserve(self.0.len() + 1);
        let mut carry = 0u32;
        for &limb in &self.0 {
            if s == 0 {
                out.push(limb);
            } else {
                out.push((limb << s) | carry);
                carry = limb >> (32 - s);
            }
        }
        out.push(carry);
        self.0 = out;
    }

    fn significant(&self) -> &[u32] {
        let len = self.0.iter().rposition(|&l| l != 0).map_or(0, |i| i + 1);
        self.0.get(..len).unwrap_or(&[])
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self.significant(), other.significant());
        a.len()
            .cmp(&b.len())
            .then_with(|| a.iter().rev().cmp(b.iter().rev()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of the node-generated table: `<f64 bits hex>\t<text>\t<String(x) === text ? 1 : 0>`.
    const TABLE: &str = include_str!("../../../../tests/fixtures/js-number-print.tsv");

    #[test]
    fn agrees_with_node_on_the_whole_table() {
        let mut rows = 0;
        let mut positives = 0;
        let mut failures = Vec::new();
        for line in TABLE
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let mut cols = line.split('\t');
            let (Some(bits), Some(text), Some(flag)) = (cols.next(), cols.next(), cols.next())
            else {
                panic!("malformed row {line:?}");
            };
            let x = f64::from_bits(u64::from_str_radix(bits, 16).unwrap());
            let want = flag == "1";
            rows += 1;
            positives += usize::from(want);
            if js_number_prints_as(x, text) != want {
                failures.push(format!("{bits} {text:?}: want {want}"));
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {rows} rows disagree:\n{}",
            failures.len(),
            failures.join("\n")
        );
        assert!(
            rows > 10_000 && positives > 3_000,
            "table too small: {rows} rows, {positives} positive"
        );
    }

    #[test]
    fn spec_examples() {
        // From the brief / node: String(Number(s)) === s.
        for (s, ok) in [
            ("2.5", true),
            ("1.50", false),
            ("1e3", false),
            ("1e+21", true),
            ("1e21", false),
            ("0.30000000000000004", true),
            ("0.30000000000000003", false),
            ("0.000001", true),
            ("1e-7", true),
            ("5e-324", true),
            ("4e-324", false),
            ("1.7976931348623157e+308", true),
            ("123456789012345680000", true),
            ("1125899906842624.2", true),
            ("1125899906842624.3", false),
            ("1125899906842624.8", true),
            ("1125899906842624.7", false),
        ] {
            let x: f64 = s.parse().unwrap();
            assert_eq!(js_number_prints_as(x, s), ok, "{s}");
        }
        assert!(js_number_prints_as(-0.0, "0"));
        assert!(!js_number_prints_as(-0.0, "-0"));
        assert!(js_number_prints_as(f64::NAN, "NaN"));
        assert!(js_number_prints_as(f64::NEG_INFINITY, "-Infinity"));
        assert!(!js_number_prints_as(-2.5, "--2.5"));
        assert!(!js_number_prints_as(2.5, "+2.5"));
    }

    #[test]
    fn exact_comparison() {
        assert_eq!(cmp_exact(0.25, 25, -2), Ordering::Equal);
        assert_eq!(cmp_exact(0.1, 1, -1), Ordering::Greater); // 0.1 is 0.1000000000000000055…
        assert_eq!(cmp_exact(0.3, 3, -1), Ordering::Less); // 0.299999999999999988…
        assert_eq!(cmp_exact(1e300, 1, 300), Ordering::Greater); // 1.0000000000000000525…e300
        assert_eq!(cmp_exact(f64::from_bits(1), 5, -324), Ordering::Less); // 4.94…e-324
    }
}
