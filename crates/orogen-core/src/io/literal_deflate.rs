//! Raw deflate without a match search: one dynamic Huffman block of
//! literals, its code fitted to the strip's own byte counts.
//!
//! Hand-written for 16-bit height PNGs. Their Up-filtered low bytes are
//! noise, so zlib-rs's quickest level (the fastest deflate a kept crate
//! offers) spends most of its time looking for matches it rarely finds:
//! on the `default` preset at 8193² it took about 290 ms of the export's
//! 450. Coding every byte with the strip's Huffman code takes a third of
//! that, for files about a fifth larger (the bytes' order-0 entropy, 4.5
//! bits, against 3.7 with matches). `fdeflate`, the `png` crate's fast
//! coder, writes only whole zlib streams, which cannot be joined into one
//! PNG strip by strip.

/// Longest code deflate allows for literals.
const MAX_BITS: u32 = 15;
/// Longest code for the code-length alphabet.
const CL_MAX_BITS: u32 = 7;
/// The order in which a dynamic block lists the code-length code.
const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];
/// End of block.
const EOB: usize = 256;

/// Deflates `input` as one dynamic-Huffman block of literals into `out`
/// (cleared first). With `last` the block is final; otherwise an empty
/// stored block follows (a full flush), so the output ends on a byte
/// boundary and the next strip's blocks can be appended.
pub fn deflate_literals(input: &[u8], last: bool, out: &mut Vec<u8>) {
    out.clear();
    // A literal takes at most 15 bits: under two bytes each.
    out.reserve(input.len() * 2 + 1024);
    let mut freq = byte_counts(input);
    freq[EOB] = 1;
    let lengths = code_lengths(&freq, MAX_BITS);
    let codes = canonical_codes(&lengths);

    let mut bits = BitWriter { out, buf: 0, n: 0 };
    bits.put(last as u64, 1);
    bits.put(2, 2); // dynamic Huffman
    bits.put(0, 5); // 257 literal/length codes: literals and end of block
    bits.put(1, 5); // 2 distance codes (a complete code, never used)
    let mut all_lengths = lengths.clone();
    all_lengths.extend([1, 1]);
    let runs = length_runs(&all_lengths);
    let mut cl_freq = [0u64; 19];
    for run in &runs {
        cl_freq[run.symbol as usize] += 1;
    }
    let cl_lengths = code_lengths(&cl_freq, CL_MAX_BITS);
    let cl_codes = canonical_codes(&cl_lengths);
    let listed = (4..=19)
        .rev()
        .find(|&n| cl_lengths[CL_ORDER[n - 1]] != 0)
        .unwrap_or(4);
    bits.put((listed - 4) as u64, 4);
    for &symbol in &CL_ORDER[..listed] {
        bits.put(cl_lengths[symbol] as u64, 3);
    }
    for run in &runs {
        let s = run.symbol as usize;
        bits.put(cl_codes[s] as u64, cl_lengths[s] as u32);
        if run.extra_bits > 0 {
            bits.put(run.extra as u64, run.extra_bits as u32);
        }
    }

    // Code and length of each byte in one word; two literals (at most 30
    // bits) go into the bit buffer at a time.
    let table: Vec<u32> = (0..256)
        .map(|b| codes[b] as u32 | (lengths[b] as u32) << 16)
        .collect();
    let mut pairs = input.chunks_exact(2);
    for pair in &mut pairs {
        let (a, b) = (table[pair[0] as usize], table[pair[1] as usize]);
        let (la, lb) = (a >> 16, b >> 16);
        bits.put((a & 0xffff) as u64 | ((b & 0xffff) as u64) << la, la + lb);
    }
    for &byte in pairs.remainder() {
        let t = table[byte as usize];
        bits.put((t & 0xffff) as u64, t >> 16);
    }
    bits.put(codes[EOB] as u64, lengths[EOB] as u32);
    if !last {
        // An empty stored block: 3 header bits, padding, LEN 0, NLEN !0.
        bits.put(0, 3);
        bits.align();
        bits.out.extend_from_slice(&[0, 0, 0xff, 0xff]);
    } else {
        bits.align();
    }
}

/// Deflate's bit order: codes and extra bits are packed from the least
/// significant bit of each byte.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    buf: u64,
    n: u32,
}

impl BitWriter<'_> {
    /// Appends the low `len` (≤ 32) bits of `value`.
    #[inline(always)]
    fn put(&mut self, value: u64, len: u32) {
        self.buf |= value << self.n;
        self.n += len;
        if self.n >= 32 {
            self.out.extend_from_slice(&(self.buf as u32).to_le_bytes());
            self.buf >>= 32;
            self.n -= 32;
        }
    }

    /// Pads with zero bits to a byte boundary and writes what is left.
    fn align(&mut self) {
        while self.n > 0 {
            self.out.push(self.buf as u8);
            self.buf >>= 8;
            self.n = self.n.saturating_sub(8);
        }
        self.buf = 0;
    }
}

/// How often each byte occurs, in 257 slots (the last for end of block).
fn byte_counts(input: &[u8]) -> Vec<u64> {
    // Four tables, so neighbouring equal bytes do not wait on one counter.
    let mut tables = [[0u32; 256]; 4];
    let mut quads = input.chunks_exact(4);
    for q in &mut quads {
        tables[0][q[0] as usize] += 1;
        tables[1][q[1] as usize] += 1;
        tables[2][q[2] as usize] += 1;
        tables[3][q[3] as usize] += 1;
    }
    for &b in quads.remainder() {
        tables[0][b as usize] += 1;
    }
    let mut freq = vec![0u64; 257];
    for table in &tables {
        for (f, &c) in freq.iter_mut().zip(table) {
            *f += c as u64;
        }
    }
    freq
}

/// Huffman code lengths for `freq` (0 for unused symbols), none longer
/// than `limit`. At least two symbols get a code, so the code is always
/// complete, as decoders require of the code-length code. Over the limit,
/// the counts are halved (keeping every used symbol) until the tree fits:
/// rarely needed, and never longer than a few rounds.
fn code_lengths(freq: &[u64], limit: u32) -> Vec<u8> {
    let mut f = freq.to_vec();
    for i in 0..f.len() {
        if f.iter().filter(|&&x| x > 0).count() >= 2 {
            break;
        }
        if f[i] == 0 {
            f[i] = 1;
        }
    }
    loop {
        let lengths = huffman_lengths(&f);
        if lengths.iter().all(|&l| l <= limit) {
            return lengths.iter().map(|&l| l as u8).collect();
        }
        for x in f.iter_mut().filter(|x| **x > 0) {
            *x = (*x >> 1).max(1);
        }
    }
}

/// Unlimited Huffman code lengths (two-queue method, ties broken by
/// symbol, so the same counts always give the same code).
fn huffman_lengths(freq: &[u64]) -> Vec<u32> {
    let mut leaves: Vec<(u64, usize)> = freq
        .iter()
        .enumerate()
        .filter(|&(_, &f)| f > 0)
        .map(|(s, &f)| (f, s))
        .collect();
    leaves.sort_unstable();
    let n = leaves.len();
    let mut lengths = vec![0u32; freq.len()];
    if n < 2 {
        for &(_, s) in &leaves {
            lengths[s] = 1;
        }
        return lengths;
    }
    // Nodes 0..n are the sorted leaves, n.. the merged nodes in the
    // order made (their weights never decrease).
    let mut weight: Vec<u64> = leaves.iter().map(|&(f, _)| f).collect();
    weight.resize(2 * n - 1, 0);
    let mut parent = vec![0usize; 2 * n - 1];
    let (mut next_leaf, mut next_merged) = (0, n);
    for made in n..2 * n - 1 {
        let mut take = || {
            if next_leaf < n && (next_merged >= made || weight[next_leaf] <= weight[next_merged]) {
                next_leaf += 1;
                next_leaf - 1
            } else {
                next_merged += 1;
                next_merged - 1
            }
        };
        let (a, b) = (take(), take());
        weight[made] = weight[a] + weight[b];
        parent[a] = made;
        parent[b] = made;
    }
    let mut depth = vec![0u32; 2 * n - 1];
    for node in (0..2 * n - 2).rev() {
        depth[node] = depth[parent[node]] + 1;
    }
    for (k, &(_, s)) in leaves.iter().enumerate() {
        lengths[s] = depth[k];
    }
    lengths
}

/// Canonical codes (RFC 1951 §3.2.2) for `lengths`, bit-reversed for
/// deflate's least-significant-bit-first packing.
fn canonical_codes(lengths: &[u8]) -> Vec<u16> {
    let mut count = [0u16; 16];
    for &l in lengths {
        count[l as usize] += 1;
    }
    count[0] = 0;
    let mut next = [0u16; 16];
    let mut code = 0u16;
    for bits in 1..16 {
        code = (code + count[bits - 1]) << 1;
        next[bits] = code;
    }
    lengths
        .iter()
        .map(|&l| {
            if l == 0 {
                return 0;
            }
            let c = next[l as usize];
            next[l as usize] += 1;
            c.reverse_bits() >> (16 - l as u32)
        })
        .collect()
}

/// One symbol of the code-length alphabet with its extra bits.
struct LengthRun {
    symbol: u8,
    extra: u8,
    extra_bits: u8,
}

/// The code lengths run-length coded: 16 repeats the previous length 3–6
/// times, 17 and 18 give runs of 3–10 and 11–138 zeros.
fn length_runs(lengths: &[u8]) -> Vec<LengthRun> {
    let mut runs = Vec::new();
    let plain = |l: u8| LengthRun {
        symbol: l,
        extra: 0,
        extra_bits: 0,
    };
    let mut i = 0;
    while i < lengths.len() {
        let l = lengths[i];
        let mut run = 1;
        while i + run < lengths.len() && lengths[i + run] == l {
            run += 1;
        }
        i += run;
        if l == 0 {
            let mut left = run;
            while left >= 11 {
                let k = left.min(138);
                runs.push(LengthRun {
                    symbol: 18,
                    extra: (k - 11) as u8,
                    extra_bits: 7,
                });
                left -= k;
            }
            if left >= 3 {
                runs.push(LengthRun {
                    symbol: 17,
                    extra: (left - 3) as u8,
                    extra_bits: 3,
                });
                left = 0;
            }
            runs.extend((0..left).map(|_| plain(0)));
        } else {
            runs.push(plain(l));
            let mut left = run - 1;
            while left >= 3 {
                let k = left.min(6);
                runs.push(LengthRun {
                    symbol: 16,
                    extra: (k - 3) as u8,
                    extra_bits: 2,
                });
                left -= k;
            }
            runs.extend((0..left).map(|_| plain(l)));
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Joins strips as a PNG does and inflates them with zlib-rs.
    fn round_trip(strips: &[Vec<u8>]) -> Vec<u8> {
        let mut stream = Vec::new();
        let mut out = Vec::new();
        for (i, strip) in strips.iter().enumerate() {
            deflate_literals(strip, i + 1 == strips.len(), &mut out);
            stream.extend_from_slice(&out);
        }
        let total: usize = strips.iter().map(Vec::len).sum();
        let mut back = vec![0u8; total + 1];
        let config = zlib_rs::InflateConfig { window_bits: -15 };
        let (data, code) = zlib_rs::decompress_slice(&mut back, &stream, config);
        assert_eq!(code, zlib_rs::ReturnCode::Ok, "inflate failed");
        data.to_vec()
    }

    #[test]
    fn skewed_counts_stay_within_fifteen_bits_and_inflate() {
        // Fibonacci counts make a Huffman tree 24 deep, over the limit.
        let (mut a, mut b) = (1usize, 1usize);
        let mut data = Vec::new();
        for symbol in 0..25u8 {
            data.extend(std::iter::repeat_n(symbol.wrapping_mul(37), a));
            (a, b) = (b, a + b);
        }
        let freq = byte_counts(&data);
        assert!(huffman_lengths(&freq).iter().any(|&l| l > MAX_BITS));
        assert!(
            code_lengths(&freq, MAX_BITS)
                .iter()
                .all(|&l| l as u32 <= MAX_BITS)
        );
        assert_eq!(round_trip(&[data.clone()]), data);
    }

    #[test]
    fn one_repeated_byte_and_single_bytes_inflate() {
        for data in [vec![7u8; 5000], vec![0u8], vec![255u8, 0]] {
            assert_eq!(round_trip(std::slice::from_ref(&data)), data);
        }
    }

    proptest! {
        /// Any bytes, cut into any strips, come back whole.
        #[test]
        fn strips_of_any_bytes_inflate_to_the_input(
            strips in prop::collection::vec(prop::collection::vec(any::<u8>(), 1..3000), 1..5),
            small_alphabet in any::<bool>(),
        ) {
            let strips: Vec<Vec<u8>> = if small_alphabet {
                strips.into_iter().map(|s| s.into_iter().map(|b| b % 5).collect()).collect()
            } else {
                strips
            };
            let joined: Vec<u8> = strips.concat();
            prop_assert_eq!(round_trip(&strips), joined);
        }
    }
}
