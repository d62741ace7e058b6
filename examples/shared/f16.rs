//! Trunk feature maps stored as float16, as the training scripts read them (shared by the data examples).

/// The little-endian float16 bytes of `data`.
pub fn le_bytes(data: &[f32]) -> Vec<u8> {
    data.iter().flat_map(|&v| bits(v).to_le_bytes()).collect()
}

/// float32 → float16 bits, rounding to nearest (the trunk's features are small and non-negative).
fn bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mant = bits & 0x7f_ffff;
    if exp >= 31 {
        return sign | 0x7c00;
    }
    if exp <= 0 {
        if exp < -10 {
            return sign;
        }
        let m = (mant | 0x80_0000) >> (1 - exp);
        return sign | ((m + 0x1000) >> 13) as u16;
    }
    let rounded = ((exp as u32) << 10 | (mant >> 13)) + ((mant >> 12) & 1);
    sign | rounded as u16
}
