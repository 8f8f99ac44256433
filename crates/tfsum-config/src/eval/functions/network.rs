//! CIDR functions: `cidrhost`, `cidrnetmask`, `cidrsubnet`, `cidrsubnets` (Terraform
//! `internal/lang/funcs/cidr.go`, over `internal/ipaddr` — Go's address parser from
//! before 1.17, which reads `010.1.0.0` as decimal — and `apparentlymart/go-cidr`).
//!
//! Addresses are `u128` with a width of 32 or 128 bits. An IPv4 address written in IPv6
//! form (`::ffff:10.0.0.0`) keeps the IPv6 width for the arithmetic but prints as IPv4,
//! as Go prints it.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::{check_items, number_arg, string_arg, Ctx};
use crate::eval::value::Value;

/// A network: its first address, its prefix length and its address width (32 or 128).
#[derive(Clone, Copy)]
struct Net {
    addr: u128,
    prefix: u32,
    bits: u32,
}

impl Net {
    fn host_mask(self) -> u128 {
        low_bits(self.bits - self.prefix)
    }

    fn last(self) -> u128 {
        self.addr | self.host_mask()
    }

    /// `addr` masked to `prefix` bits, as a network of this width.
    fn with_prefix(self, addr: u128, prefix: u32) -> Net {
        let host = low_bits(self.bits - prefix);
        Net {
            addr: addr & !host & low_bits(self.bits),
            prefix,
            bits: self.bits,
        }
    }

    fn contains(self, addr: u128) -> bool {
        addr & !self.host_mask() == self.addr
    }
}

/// The lowest `n` bits set.
fn low_bits(n: u32) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// An address as Go writes it: dotted IPv4, or RFC 5952 IPv6 (an IPv4-mapped one as
/// IPv4).
fn address_text(addr: u128, bits: u32) -> String {
    if bits == 32 {
        return Ipv4Addr::from(addr as u32).to_string();
    }
    let v6 = Ipv6Addr::from(addr);
    match v6.to_ipv4_mapped() {
        Some(v4) => v4.to_string(),
        None => v6.to_string(),
    }
}

/// A network as Go's `IPNet.String` writes it (an IPv4-mapped one with its IPv4 prefix).
fn net_text(net: Net) -> String {
    if net.bits == 128 && Ipv6Addr::from(net.addr).to_ipv4_mapped().is_some() && net.prefix >= 96 {
        return format!("{}/{}", address_text(net.addr, 128), net.prefix - 96);
    }
    format!("{}/{}", address_text(net.addr, net.bits), net.prefix)
}

/// An IPv4 address as Go's old parser reads it: four decimal parts up to 255, leading
/// zeros allowed.
fn parse_ipv4(text: &str) -> Option<u32> {
    let mut out = 0u32;
    let mut parts = 0;
    for part in text.split('.') {
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let value: u32 = part.trim_start_matches('0').parse().unwrap_or(0);
        if part.trim_start_matches('0').len() > 3 || value > 255 {
            return None;
        }
        out = out << 8 | value;
        parts += 1;
    }
    (parts == 4).then_some(out)
}

/// `prefix/length` as `net.ParseCIDR` reads it, host bits cleared.
fn parse_cidr(text: &str) -> Result<Net, String> {
    let refuse = || format!("invalid CIDR expression: invalid CIDR address: {text}");
    let (ip, length) = text.split_once('/').ok_or_else(refuse)?;
    let (addr, bits) = match parse_ipv4(ip) {
        Some(v4) => (u128::from(v4), 32),
        None => (
            u128::from(ip.parse::<Ipv6Addr>().map_err(|_| refuse())?),
            128,
        ),
    };
    if length.is_empty() || length.len() > 3 || !length.bytes().all(|b| b.is_ascii_digit()) {
        return Err(refuse());
    }
    let prefix: u32 = length.parse().map_err(|_| refuse())?;
    if prefix > bits {
        return Err(refuse());
    }
    let net = Net {
        addr: 0,
        prefix,
        bits,
    };
    Ok(net.with_prefix(addr, prefix))
}

/// A whole-number argument that may pass `i64` (a host or network number in IPv6).
fn big_int_arg(args: &[Value], i: usize) -> Result<i128, String> {
    let n = number_arg(args, i)?;
    if n.fract() != 0.0 || !n.is_finite() {
        return Err(format!("argument {} must be a whole number", i + 1));
    }
    if n.abs() >= 1.7e38 {
        return Err(format!("argument {} is too large", i + 1));
    }
    Ok(n as i128)
}

/// `cidrhost(prefix, hostnum)`: the address numbered `hostnum` in the network (a
/// negative number counts back from its last address).
pub(super) fn cidrhost(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let net = parse_cidr(&string_arg(&args, 0)?)?;
    let num = big_int_arg(&args, 1)?;
    let host_bits = net.bits - net.prefix;
    let max = low_bits(host_bits);
    let refuse = || {
        format!(
            "prefix of {} does not accommodate a host numbered {num}",
            net.prefix
        )
    };
    let offset = if num < 0 {
        let back = num.unsigned_abs() - 1;
        max.checked_sub(back).ok_or_else(refuse)?
    } else {
        let num = num.unsigned_abs();
        if num > max {
            return Err(refuse());
        }
        num
    };
    Ok(Value::String(address_text(net.addr | offset, net.bits)))
}

/// `cidrnetmask(prefix)`: an IPv4 network's mask in dotted form.
pub(super) fn cidrnetmask(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let net = parse_cidr(&text)?;
    if net.bits != 32 {
        return Err(format!("IPv6 addresses cannot have a netmask: {text}"));
    }
    let mask = !low_bits(32 - net.prefix) & low_bits(32);
    Ok(Value::String(address_text(mask, 32)))
}

/// `cidrsubnet(prefix, newbits, netnum)`: the `netnum`th network `newbits` longer.
pub(super) fn cidrsubnet(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let net = parse_cidr(&string_arg(&args, 0)?)?;
    let newbits = big_int_arg(&args, 1)?;
    let num = big_int_arg(&args, 2)?;
    if newbits < 0 || i128::from(net.prefix) + newbits > i128::from(net.bits) {
        return Err(format!(
            "insufficient address space to extend prefix of {} by {newbits}",
            net.prefix
        ));
    }
    let newbits = newbits as u32;
    if num < 0 || num.unsigned_abs() > low_bits(newbits) {
        return Err(format!(
            "prefix extension of {newbits} does not accommodate a subnet numbered {num}"
        ));
    }
    let prefix = net.prefix + newbits;
    let shift = net.bits - prefix;
    let addr = net.addr | (num.unsigned_abs().checked_shl(shift).unwrap_or(0));
    Ok(Value::String(net_text(net.with_prefix(addr, prefix))))
}

/// `cidrsubnets(prefix, newbits…)`: consecutive networks, each `newbits` longer than the
/// prefix, aligned, none overlapping.
pub(super) fn cidrsubnets(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let net = parse_cidr(&string_arg(&args, 0)?)?;
    let lengths = (1..args.len())
        .map(|i| super::int_arg(&args, i))
        .collect::<Result<Vec<i64>, String>>()?;
    check_items(lengths.len())?;
    let Some(&first) = lengths.first() else {
        return Ok(Value::List(Vec::new()));
    };
    let bits = i64::from(net.bits);
    let start = i64::from(net.prefix);
    let first = (first + start).clamp(0, bits) as u32;
    // The network just before the prefix, at the first length (go-cidr's PreviousSubnet).
    let mut current = net.with_prefix(net.addr.wrapping_sub(1), first);
    let mut out = Vec::with_capacity(lengths.len());
    for (i, extend) in lengths.into_iter().enumerate() {
        let position = i + 1;
        if extend < 1 {
            return Err(format!(
                "argument {position}: must extend prefix by at least one bit"
            ));
        }
        if extend > 32 {
            return Err(format!(
                "argument {position}: may not extend prefix by more than 32 bits"
            ));
        }
        let length = extend + start;
        if length > bits {
            let protocol = if net.bits == 32 { "IPv4" } else { "IPv6" };
            return Err(format!(
                "argument {position}: would extend prefix to {length} bits, which is too long for an {protocol} address"
            ));
        }
        let length = length as u32;
        // go-cidr's NextSubnet: past the last address of the current network, at the
        // new length.
        let widened = current.with_prefix(current.last(), length);
        let after = widened.last().wrapping_add(1) & low_bits(net.bits);
        let next = current.with_prefix(after, length);
        if after == 0 || !net.contains(next.addr) {
            return Err(format!(
                "argument {position}: not enough remaining address space for a subnet with a prefix of {length} bits after {}",
                net_text(current)
            ));
        }
        current = next;
        out.push(Value::String(net_text(current)));
    }
    Ok(Value::List(out))
}

#[cfg(test)]
mod tests {
    use crate::eval::functions::tests::{check, list, s, strs, Case};

    /// Cases from Terraform `internal/lang/funcs/cidr_test.go`.
    #[test]
    fn cidr_functions() {
        let cases: &[Case] = &[
            ("cidrhost(\"192.168.1.0/24\", 5)", Ok(s("192.168.1.5"))),
            ("cidrhost(\"192.168.1.0/24\", -5)", Ok(s("192.168.1.251"))),
            ("cidrhost(\"192.168.1.0/24\", -256)", Ok(s("192.168.1.0"))),
            ("cidrhost(\"192.168.1.0/24\", -257)", Err("prefix of 24 does not accommodate a host numbered -257")),
            ("cidrhost(\"010.001.0.0/24\", 6)", Ok(s("10.1.0.6"))),
            ("cidrhost(\"192.168.1.0/30\", 255)", Err("prefix of 30 does not accommodate a host numbered 255")),
            ("cidrhost(\"192.168.1.0/30\", -255)", Err("does not accommodate a host")),
            ("cidrhost(\"not-a-cidr\", 6)", Err("invalid CIDR expression: invalid CIDR address: not-a-cidr")),
            ("cidrhost(\"10.256.0.0/8\", 6)", Err("invalid CIDR expression")),
            ("cidrhost(\"10.0.0.0/8\", 0.75)", Err("must be a whole number")),
            ("cidrhost(\"fd00:fd12:3456:7890::/56\", 34)", Ok(s("fd00:fd12:3456:7800::22"))),
            ("cidrhost(\"fd00::/64\", -1)", Ok(s("fd00::ffff:ffff:ffff:ffff"))),
            ("cidrhost(\"192.168.1.7/24\", 1)", Ok(s("192.168.1.1"))),
            ("cidrnetmask(\"192.168.1.0/24\")", Ok(s("255.255.255.0"))),
            ("cidrnetmask(\"192.168.1.0/32\")", Ok(s("255.255.255.255"))),
            ("cidrnetmask(\"0.0.0.0/0\")", Ok(s("0.0.0.0"))),
            ("cidrnetmask(\"010.001.0.0/24\")", Ok(s("255.255.255.0"))),
            ("cidrnetmask(\"not-a-cidr\")", Err("invalid CIDR expression")),
            ("cidrnetmask(\"110.256.0.0/8\")", Err("invalid CIDR expression")),
            ("cidrnetmask(\"1::/64\")", Err("IPv6 addresses cannot have a netmask: 1::/64")),
            ("cidrsubnet(\"192.168.2.0/20\", 4, 6)", Ok(s("192.168.6.0/24"))),
            ("cidrsubnet(\"fe80::/48\", 16, 6)", Ok(s("fe80:0:0:6::/64"))),
            ("cidrsubnet(\"::ffff:192.168.0.0/112\", 8, 6)", Ok(s("192.168.6.0/24"))),
            ("cidrsubnet(\"fe80::/48\", 33, 6)", Ok(s("fe80::3:0:0:0/81"))),
            ("cidrsubnet(\"010.001.0.0/24\", 4, 1)", Ok(s("10.1.0.16/28"))),
            ("cidrsubnet(\"192.168.0.0/30\", 4, 6)", Err("insufficient address space to extend prefix of 30 by 4")),
            ("cidrsubnet(\"192.168.0.0/168\", 2, 16)", Err("invalid CIDR expression")),
            ("cidrsubnet(\"10.0.0.0/8\", 2, 4)", Err("prefix extension of 2 does not accommodate a subnet numbered 4")),
            ("cidrsubnet(\"not-a-cidr\", 4, 6)", Err("invalid CIDR expression")),
            ("cidrsubnet(\"10.0.0.0/8\", 0.5, 1)", Err("must be a whole number")),
            (
                "cidrsubnets(\"10.0.0.0/21\", 3, 3, 3, 4, 4, 4, 7, 7, 7)",
                Ok(strs(&[
                    "10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/25", "10.0.3.128/25",
                    "10.0.4.0/25", "10.0.4.128/28", "10.0.4.144/28", "10.0.4.160/28",
                ])),
            ),
            ("cidrsubnets(\"010.0.0.0/21\", 3)", Ok(strs(&["10.0.0.0/24"]))),
            ("cidrsubnets(\"10.0.0.0/8\")", Ok(list(vec![]))),
            ("cidrsubnets(\"10.0.0.0/8\", 1, 1)", Ok(strs(&["10.0.0.0/9", "10.128.0.0/9"]))),
            // go-cidr's first step wraps below 0.0.0.0 and its next one reports the wrap.
            ("cidrsubnets(\"0.0.0.0/0\", 1)", Err("not enough remaining address space for a subnet with a prefix of 1 bits after 128.0.0.0/1")),
            ("cidrsubnets(\"fd00::/56\", 8, 8)", Ok(strs(&["fd00::/64", "fd00:0:0:1::/64"]))),
            ("cidrsubnets(\"10.0.0.0/30\", 1, 3)", Err("would extend prefix to 33 bits, which is too long for an IPv4 address")),
            ("cidrsubnets(\"10.0.0.0/8\", 1, 1, 1)", Err("not enough remaining address space for a subnet with a prefix of 9 bits after 10.128.0.0/9")),
            ("cidrsubnets(\"10.0.0.0/8\", 1, 0)", Err("must extend prefix by at least one bit")),
            ("cidrsubnets(\"10.0.0.0/8\", 1, -1)", Err("must extend prefix by at least one bit")),
            ("cidrsubnets(\"fe80::/48\", 1, 33)", Err("may not extend prefix by more than 32 bits")),
        ];
        check(cases);
    }
}
