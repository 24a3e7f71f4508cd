//! Colour difference as OSWorld's Writer metric computes it: scikit-image's `rgb2lab` (sRGB,
//! D65, 2° observer) and `deltaE_ciede2000`, operation for operation in double precision, so
//! that a difference compared with a threshold falls on the same side.

use std::f64::consts::PI;

const XYZ_FROM_RGB: [[f64; 3]; 3] = [[0.412453, 0.357580, 0.180423], [0.212671, 0.715160, 0.072169], [0.019334, 0.119193, 0.950227]];
const D65: [f64; 3] = [0.95047, 1.0, 1.08883];

/// `rgb2lab([r / 255.0, g / 255.0, b / 255.0])`.
pub fn rgb2lab(rgb: [u8; 3]) -> [f64; 3] {
    let linear = rgb.map(|c| {
        let v = f64::from(c) / 255.0;
        if v > 0.04045 {
            ((v + 0.055) / 1.055).powf(2.4)
        } else {
            v / 12.92
        }
    });
    let xyz = XYZ_FROM_RGB.map(|row| linear[0] * row[0] + linear[1] * row[1] + linear[2] * row[2]);
    let mut f = [0.0; 3];
    for i in 0..3 {
        let v = xyz[i] / D65[i];
        f[i] = if v > 0.008856 { v.cbrt() } else { 7.787 * v + 16.0 / 116.0 };
    }
    [116.0 * f[1] - 16.0, 500.0 * (f[0] - f[1]), 200.0 * (f[1] - f[2])]
}

/// `_cart2polar_2pi`: radius and angle in [0, 2π).
fn polar(x: f64, y: f64) -> (f64, f64) {
    let t = y.atan2(x);
    (x.hypot(y), if t < 0.0 { t + 2.0 * PI } else { t })
}

/// `deltaE_ciede2000(lab1, lab2)` with kL = kC = kH = 1.
pub fn ciede2000(lab1: [f64; 3], lab2: [f64; 3]) -> f64 {
    let [l1, a1, b1] = lab1;
    let [l2, a2, b2] = lab2;
    let seven = 25f64.powi(7);
    let cbar = 0.5 * (a1.hypot(b1) + a2.hypot(b2));
    let c7 = cbar.powf(7.0);
    let g = 0.5 * (1.0 - (c7 / (c7 + seven)).sqrt());
    let scale = 1.0 + g;
    let (c1, h1) = polar(a1 * scale, b1);
    let (c2, h2) = polar(a2 * scale, b2);

    let lbar = 0.5 * (l1 + l2);
    let tmp = (lbar - 50.0) * (lbar - 50.0);
    let sl = 1.0 + 0.015 * tmp / (20.0 + tmp).sqrt();
    let l_term = (l2 - l1) / sl;

    let cbar = 0.5 * (c1 + c2);
    let sc = 1.0 + 0.045 * cbar;
    let c_term = (c2 - c1) / sc;

    let h_diff = h2 - h1;
    let h_sum = h1 + h2;
    let cc = c1 * c2;
    let mut dh = h_diff;
    if h_diff > PI {
        dh -= 2.0 * PI;
    }
    if h_diff < -PI {
        dh += 2.0 * PI;
    }
    if cc == 0.0 {
        dh = 0.0;
    }
    let dh_term = 2.0 * cc.sqrt() * (dh / 2.0).sin();

    let mut hbar = h_sum;
    if cc != 0.0 && h_diff.abs() > PI {
        if h_sum < 2.0 * PI {
            hbar += 2.0 * PI;
        } else {
            hbar -= 2.0 * PI;
        }
    }
    if cc == 0.0 {
        hbar *= 2.0;
    }
    hbar *= 0.5;

    let t = 1.0 - 0.17 * (hbar - 30f64.to_radians()).cos() + 0.24 * (2.0 * hbar).cos() + 0.32 * (3.0 * hbar + 6f64.to_radians()).cos()
        - 0.20 * (4.0 * hbar - 63f64.to_radians()).cos();
    let sh = 1.0 + 0.015 * cbar * t;
    let h_term = dh_term / sh;

    let c7 = cbar.powf(7.0);
    let rc = 2.0 * (c7 / (c7 + seven)).sqrt();
    let ratio = (hbar.to_degrees() - 275.0) / 25.0;
    let dtheta = 30f64.to_radians() * (-(ratio * ratio)).exp();
    let r_term = -(2.0 * dtheta).sin() * rc * c_term * h_term;

    let mut de2 = l_term * l_term;
    de2 += c_term * c_term;
    de2 += h_term * h_term;
    de2 += r_term;
    de2.max(0.0).sqrt()
}

/// The CIEDE2000 difference of two sRGB colours.
pub fn ciede2000_rgb(a: [u8; 3], b: [u8; 3]) -> f64 {
    ciede2000(rgb2lab(a), rgb2lab(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_zero_for_equal_colours_and_grow_with_distance() {
        assert_eq!(ciede2000_rgb([255, 0, 0], [255, 0, 0]), 0.0);
        let near = ciede2000_rgb([250, 0, 0], [255, 0, 0]);
        let far = ciede2000_rgb([0, 0, 255], [255, 0, 0]);
        assert!(near > 0.0 && near < 3.5 && far > 50.0, "{near} {far}");
    }
}
