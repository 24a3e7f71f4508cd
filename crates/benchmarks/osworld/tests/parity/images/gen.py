"""Writes the image parity cases: OSWorld's GIMP image metrics (`gimp.py`) over pictures as an
agent would leave them and the task's originals.

Pictures are drawn from a seeded generator (a gradient, shapes, grain), then changed as the
tasks ask (darker, more saturated, more contrast, mirrored, scaled, indexed, transparent
margins), saved as PNG and JPEG in the modes Pillow gives them (RGB, RGBA, L, LA, P with and
without a transparent entry). `gimp_made/` holds the same changes made by GIMP 2.10 itself
(`gimp.scm`, run by `make_gimp.sh`); those files are kept as GIMP wrote them.

Left out on purpose, because OSWorld raises on them and they are the agent's state, which
scores 0 here (the Rust unit tests pin those): a picture that is not square for
`check_green_background`, an image with one colour for `check_triangle_position`.

Needs NumPy and Pillow (the OSWorld venv has both). Its output is deterministic.
"""
import json
import os
import shutil
import sys
import types

import importlib.util

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance, ImageOps

# OSWorld's own gimp.py, loaded by path (its package's __init__ imports every metric module):
# the edge cases below are placed where its numbers sit near a threshold.
if importlib.util.find_spec("cv2") is None:  # imported at its top, used by none of the metrics here
    sys.modules["cv2"] = types.ModuleType("cv2")
_root = importlib.util.find_spec("desktop_env").submodule_search_locations[0]
_spec = importlib.util.spec_from_file_location("osworld_gimp", os.path.join(_root, "evaluators", "metrics", "gimp.py"))
osworld = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(osworld)

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
GIMP = os.path.join(HERE, "gimp_made")
cases = []


def save(name, image, **kw):
    image.save(os.path.join(FILES, name), **kw)
    return name


def photo(w, h, seed, alpha=False):
    """A picture with the structure of a photograph: light, shapes, grain."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([
        90 + 100 * x / w + 20 * np.sin(y / 9.0),
        60 + 120 * y / h,
        140 - 60 * x / w + 30 * np.cos(x / 13.0),
    ], axis=-1)
    for _ in range(6):
        cx, cy, r = rng.integers(0, w), rng.integers(0, h), rng.integers(4, max(5, min(w, h) // 3))
        colour = rng.integers(0, 256, 3)
        mask = (x - cx) ** 2 + (y - cy) ** 2 < r * r
        base[mask] = 0.4 * base[mask] + 0.6 * colour
    base += rng.normal(0, 6, base.shape)
    image = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8), "RGB")
    if alpha:
        image.putalpha(Image.fromarray(np.clip(255 - 2 * np.abs(x - w / 2), 0, 255).astype(np.uint8), "L"))
    return image


def case(name, func, result, expected, note, options=None, expected_as=None):
    c = {"name": name, "func": func, "result": result, "expected": expected, "options": options or {}, "note": note}
    if expected_as:
        c["expected_as"] = expected_as
    cases.append(c)


def write_bytes(name, data):
    with open(os.path.join(FILES, name), "wb") as f:
        f.write(data)
    return name


def rule(name, value):
    with open(os.path.join(FILES, name), "w") as f:
        json.dump(value, f)
    return name


os.makedirs(FILES, exist_ok=True)
for f in os.listdir(FILES):
    os.remove(os.path.join(FILES, f))

orig = photo(96, 64, 1)
other = photo(96, 64, 2)
o = save("orig.png", orig)
save("orig.jpg", orig, quality=92)
ot = save("other.png", other)

# check_brightness_decrease_and_structure_sim(result, original)
B = "check_brightness_decrease_and_structure_sim"
case("bright_darker", B, save("darker.png", ImageEnhance.Brightness(orig).enhance(0.7)), o, "darker, same picture")
case("bright_slightly_darker", B, save("darker99.png", ImageEnhance.Brightness(orig).enhance(0.99)), o, "a little darker")
case("bright_brighter", B, save("brighter.png", ImageEnhance.Brightness(orig).enhance(1.3)), o, "brighter")
case("bright_same", B, o, o, "unchanged: not darker")
case("bright_other_darker", B, save("other_darker.png", ImageEnhance.Brightness(other).enhance(0.6)), o, "darker, another picture")
case("bright_darker_jpeg", B, save("darker.jpg", ImageEnhance.Brightness(orig).enhance(0.7), quality=85), o, "darker, saved as JPEG")
case("bright_darker_smaller", B, save("darker_small.png", ImageEnhance.Brightness(orig).enhance(0.7).resize((48, 32))), o,
     "darker and half the size: resized back by Lanczos")
case("bright_darker_larger", B, save("darker_large.png", ImageEnhance.Brightness(orig).enhance(0.7).resize((131, 77))), o,
     "darker and larger, another aspect")
case("bright_darker_rgba", B, save("darker_rgba.png", ImageEnhance.Brightness(photo(96, 64, 1, alpha=True)).enhance(0.7)),
     save("orig_rgba.png", photo(96, 64, 1, alpha=True)), "with alpha: the point table changes alpha too")
case("bright_darker_grey", B, save("darker_grey.png", ImageEnhance.Brightness(orig.convert("L")).enhance(0.7)),
     save("orig_grey.png", orig.convert("L")), "grey pictures")
case("bright_darker_vs_grey", B, save("darker_rgb_of_grey.png", ImageEnhance.Brightness(orig.convert("L")).enhance(0.7).convert("RGB")),
     "orig_grey.png", "an RGB result against a grey original")
case("bright_darker_palette", B, save("darker_p.png", ImageEnhance.Brightness(orig).enhance(0.7).quantize(64)), o,
     "an indexed result: the point table changes indices")
case("bright_darker_threshold", B, "darker.png", o, "a threshold too tight", {"threshold": 0.0001})
case("bright_missing", B, None, o, "no result")
# A structure change near the threshold: the darker picture with a square painted over it.
for side in (30, 34, 38, 42, 46, 50):
    im = ImageEnhance.Brightness(orig).enhance(0.7)
    ImageDraw.Draw(im).rectangle([0, 0, side, side * 2 // 3], fill=(255, 255, 255))
    case("bright_square_%d" % side, B, save("darker_square_%d.png" % side, im), o, "a white block: the MSE crosses 0.03")

# check_saturation_increase_and_structure_sim(result, original)
S = "check_saturation_increase_and_structure_sim"
case("sat_more", S, save("saturated.png", ImageEnhance.Color(orig).enhance(1.5)), o, "more saturated")
case("sat_less", S, save("desaturated.png", ImageEnhance.Color(orig).enhance(0.6)), o, "less saturated")
case("sat_same", S, o, o, "unchanged")
case("sat_much_more", S, save("saturated3.png", ImageEnhance.Color(orig).enhance(3.0)), o, "far more: hue bands drift")
case("sat_other", S, save("other_saturated.png", ImageEnhance.Color(other).enhance(1.5)), o, "another picture")
case("sat_more_jpeg", S, save("saturated.jpg", ImageEnhance.Color(orig).enhance(1.5), quality=90), o, "more, JPEG")
case("sat_more_rgba", S, save("saturated_rgba.png", ImageEnhance.Color(photo(96, 64, 1, alpha=True)).enhance(1.5)), "orig_rgba.png", "with alpha")
case("sat_more_palette", S, save("saturated_p.png", ImageEnhance.Color(orig).enhance(1.5).quantize(200)), o, "indexed")
case("sat_smaller", S, save("saturated_small.png", ImageEnhance.Color(orig).enhance(1.5).resize((48, 32))), o, "another size: SSIM says no")

# check_contrast_increase_and_structure_sim(result, original)
C = "check_contrast_increase_and_structure_sim"
case("contrast_more", C, save("contrast.png", ImageEnhance.Contrast(orig).enhance(1.5)), o, "more contrast")
case("contrast_less", C, save("flat.png", ImageEnhance.Contrast(orig).enhance(0.6)), o, "less")
case("contrast_same", C, o, o, "unchanged")
case("contrast_extreme", C, save("contrast5.png", ImageEnhance.Contrast(orig).enhance(5.0)), o, "so much that SSIM falls")
case("contrast_other", C, save("other_contrast.png", ImageEnhance.Contrast(other).enhance(1.5)), o, "another picture")
case("contrast_rgba", C, save("contrast_rgba.png", ImageEnhance.Contrast(photo(96, 64, 1, alpha=True)).enhance(1.5)), "orig_rgba.png",
     "with alpha: the spread counts the alpha band")
case("contrast_grey", C, save("contrast_grey.png", ImageEnhance.Contrast(orig.convert("L")).enhance(1.5)), o, "a grey result")
case("contrast_autocontrast", C, save("autocontrast.png", ImageOps.autocontrast(orig, cutoff=2)), o, "stretched levels")

# check_structure_sim(result, expected)
T = "check_structure_sim"
case("struct_same", T, o, o, "the same")
case("struct_jpeg", T, "orig.jpg", o, "a JPEG of it")
case("struct_other", T, ot, o, "another picture")
case("struct_size", T, save("orig_small.png", orig.resize((48, 32))), o, "another size")
case("struct_grey", T, "orig_grey.png", o, "grey against colour")
case("struct_palette", T, save("orig_p.png", orig.quantize(128)), o, "indexed")
case("struct_tiny", T, save("tiny.png", orig.resize((6, 6))), save("tiny2.png", orig.resize((6, 6))), "under 7 pixels")
case("struct_junk", T, rule("junk.png", "not a picture"), o, "not a picture: caught, 0")
noisy = np.asarray(orig).astype(int) + np.random.default_rng(5).normal(0, 18, (64, 96, 3)).astype(int)
case("struct_noisy", T, save("noisy.png", Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8))), o, "grain added")
case("struct_missing", T, None, o, "no result")

# check_structure_sim_resized(result, expected)
R = "check_structure_sim_resized"
big = orig.resize((192, 128), Image.Resampling.BICUBIC)
case("resized_up", R, save("big.png", big), o, "twice the size")
case("resized_down", R, save("orig_small2.png", orig.resize((40, 27))), o, "smaller, another aspect")
margin = Image.new("RGBA", (140, 100), (0, 0, 0, 0))
margin.paste(orig.resize((120, 80)), (10, 12))
case("resized_margin", R, save("margin.png", margin), o, "transparent margins cropped first")
case("resized_other", R, save("other_big.png", other.resize((192, 128))), o, "another picture")
case("resized_clear", R, save("clear.png", Image.new("RGBA", (20, 20), (9, 9, 9, 0))), o, "wholly transparent")
case("resized_palette", R, save("big_p.png", big.quantize(200)), o, "indexed: resized by nearest")
pt = big.quantize(200)
pt.info["transparency"] = 0
case("resized_palette_trns", R, save("big_p_trns.png", pt, transparency=0), o, "indexed with a transparent entry")

# check_file_exists_and_structure_sim(result, expected)
F = "check_file_exists_and_structure_sim"
case("exists_same", F, o, o, "exported")
case("exists_missing_file", F, "no_such_file.png", o, "not exported")
case("exists_other", F, ot, o, "another picture")

# check_image_mirror(original, result)
M = "check_image_mirror"
flipped = orig.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
case("mirror_yes", M, o, save("flipped.png", flipped), "mirrored")
case("mirror_no", M, o, o, "not mirrored")
case("mirror_upside_down", M, o, save("flipped_v.png", orig.transpose(Image.Transpose.FLIP_TOP_BOTTOM)), "flipped the other way")
case("mirror_jpeg", M, o, save("flipped.jpg", flipped, quality=95), "mirrored, JPEG: SSIM against 0.99")
case("mirror_jpeg_low", M, o, save("flipped_q60.jpg", flipped, quality=60), "mirrored, a poor JPEG")
case("mirror_rgba", M, "orig_rgba.png", save("flipped_rgba.png", photo(96, 64, 1, alpha=True).transpose(Image.Transpose.FLIP_LEFT_RIGHT)), "with alpha")

# check_palette_and_structure_sim(result, expected)
P = "check_palette_and_structure_sim"
case("palette_yes", P, save("palette.png", orig.quantize(256)), o, "indexed, 256 colours")
case("palette_few", P, save("palette8.png", orig.quantize(8)), o, "indexed, 8 colours: SSIM falls")
case("palette_rgb", P, o, o, "not indexed")
case("palette_other", P, save("palette_other.png", other.quantize(256)), o, "indexed, another picture")
case("palette_empty", P, rule("empty.png", ""), o, "an empty file")

# check_green_background(result, expected): square pictures, a black figure on a background.
G = "check_green_background"
fig = Image.new("RGB", (40, 40), (255, 255, 255))
ImageDraw.Draw(fig).ellipse([8, 8, 31, 31], fill=(0, 0, 0))
fg = save("figure.png", fig)


def recolour(bg, name):
    im = Image.new("RGB", (40, 40), bg)
    ImageDraw.Draw(im).ellipse([8, 8, 31, 31], fill=(0, 0, 0))
    return save(name, im)


case("green_yes", G, recolour((20, 200, 30), "green_bg.png"), fg, "a green background")
case("green_red", G, recolour((200, 20, 30), "red_bg.png"), fg, "red")
case("green_grey", G, recolour((120, 120, 120), "grey_bg.png"), fg, "green equal to red: not green")
case("green_rgba", G, save("green_rgba.png", Image.open(os.path.join(FILES, "green_bg.png")).convert("RGBA")), fg, "with alpha")
case("green_wide_early", G, recolour((200, 20, 30), "red_bg2.png"), save("figure_wide.png", fig.resize((60, 40))),
     "not square, but a red pixel is met before the index runs out")

# compare_image_list(result, expected)
L = "compare_image_list"
case("list_same", L, o, save("orig_copy.png", orig), "the same pixels")
one_px = orig.copy()
one_px.putpixel((50, 30), (0, 0, 0))
case("list_one_pixel", L, save("one_px.png", one_px), o, "one pixel differs")
case("list_jpeg", L, "orig.jpg", o, "a JPEG of it")
case("list_grey", L, save("grey_rgb.png", orig.convert("L").convert("RGB")), "orig_grey.png", "converted to the expected mode")
rgba_a = photo(32, 24, 3, alpha=True)
rgba_b = Image.merge("RGBA", [*Image.new("RGB", (32, 24), (1, 2, 3)).split(), rgba_a.split()[3]])
case("list_rgba_alpha_only", L, save("rgba_b.png", rgba_b), save("rgba_a.png", rgba_a), "alpha alike, colours not: Pillow's box sees alpha")
case("list_upscaled", L, save("orig_up.png", orig.resize((192, 128), Image.Resampling.NEAREST)), o, "twice the size")

# check_image_size(result, rule)
Z = "check_image_size"
case("size_yes", Z, o, rule("size_96x64.json", {"width": 96, "height": 64}), "the size", expected_as="json")
case("size_no", Z, o, rule("size_100x64.json", {"width": 100, "height": 64}), "another width", expected_as="json")
case("size_height_only", Z, o, rule("size_h64.json", {"height": 64}), "only the height asked", expected_as="json")
case("size_float", Z, o, rule("size_float.json", {"width": 96.0, "height": 64}), "a float width", expected_as="json")
case("size_string", Z, o, rule("size_string.json", {"width": "96", "height": 64}), "a width as text", expected_as="json")
case("size_margin_ignore", Z, "margin.png", rule("size_120x80_ignore.json", {"width": 120, "height": 80, "ignore_transparent": True}),
     "transparent margins ignored", expected_as="json")
case("size_margin_whole", Z, "margin.png", rule("size_120x80.json", {"width": 120, "height": 80}), "margins counted", expected_as="json")
case("size_trns_whole", Z, "big_p_trns.png", rule("size_192x128.json", {"width": 192, "height": 128}),
     "a transparent palette entry: the box is used even unasked", expected_as="json")
case("size_missing", Z, None, "size_96x64.json", "no result", expected_as="json")

# check_image_file_size(result, rule)
case("file_size_under", "check_image_file_size", "orig.jpg", rule("max_500k.json", {"max_size": 500000}), "small enough", expected_as="json")
case("file_size_over", "check_image_file_size", o, rule("max_1k.json", {"max_size": 1000}), "too large", expected_as="json")

# check_triangle_position(result)
def triangle(name, cx, cy, w=90, h=60, mode="RGB"):
    im = Image.new(mode, (w, h), (30, 60, 200) if mode == "RGB" else (30, 60, 200, 255))
    ImageDraw.Draw(im).polygon([(cx, cy - 10), (cx - 11, cy + 8), (cx + 11, cy + 8)], fill=(250, 220, 20) if mode == "RGB" else (250, 220, 20, 255))
    return save(name, im)


case("triangle_centre", "check_triangle_position", triangle("tri_centre.png", 45, 31), None, "in the middle", expected_as="absent")
case("triangle_left", "check_triangle_position", triangle("tri_left.png", 20, 31), None, "to the left", expected_as="absent")
case("triangle_edge", "check_triangle_position", triangle("tri_edge.png", 49, 31), None, "just past 5 %", expected_as="absent")
case("triangle_rgba", "check_triangle_position", triangle("tri_rgba.png", 45, 30, mode="RGBA"), None, "with alpha", expected_as="absent")
tri3 = Image.open(os.path.join(FILES, "tri_centre.png")).copy()
ImageDraw.Draw(tri3).rectangle([0, 0, 3, 3], fill=(255, 0, 0))
case("triangle_third_colour", "check_triangle_position", save("tri_red_corner.png", tri3), None,
     "a rarer third colour: OSWorld takes the second rarest", expected_as="absent")

# check_textbox_on_leftside(result)
def text_at(name, x):
    im = Image.new("RGB", (200, 80), (240, 240, 240))
    ImageDraw.Draw(im).text((x, 30), "Hello GIMP", fill=(10, 10, 10))
    return save(name, im)


case("text_left", "check_textbox_on_leftside", text_at("text_left.png", 3), None, "at the left", expected_as="absent")
case("text_right", "check_textbox_on_leftside", text_at("text_right.png", 120), None, "at the right", expected_as="absent")
case("text_ten", "check_textbox_on_leftside", text_at("text_ten.png", 10), None, "at 5 %", expected_as="absent")

# Edges: results whose numbers sit next to the metric's threshold, so that only the same
# arithmetic gives the same verdict.
def mse_of(result, original):
    a = osworld.normalize_brightness(Image.open(os.path.join(FILES, result)), 128)
    b = osworld.normalize_brightness(Image.open(os.path.join(FILES, original)), 128)
    a, b = a.resize(b.size, Image.Resampling.LANCZOS).convert("RGB"), b.convert("RGB")
    return float(np.mean((np.array(a, dtype=np.float32) / 255 - np.array(b, dtype=np.float32) / 255) ** 2))


for result in ("darker.png", "darker.jpg", "darker_small.png", "darker_rgba.png"):
    original = "orig_rgba.png" if "rgba" in result else o
    mse = mse_of(result, original)
    stem = result.replace(".", "_")
    case("edge_mse_%s_below" % stem, B, result, original, "a threshold just below the MSE (%r)" % mse, {"threshold": mse * (1 - 3e-7)})
    case("edge_mse_%s_above" % stem, B, result, original, "a threshold just above the MSE", {"threshold": mse * (1 + 3e-7)})


def rgb_ssim(a, b):
    from skimage.metrics import structural_similarity
    return structural_similarity(np.array(a.convert("RGB")), np.array(b.convert("RGB")), win_size=7, channel_axis=2)


def near(threshold, make, count, tag, func, flip=False):
    """Of `count` results made by `make(k)`, the two whose SSIM with orig falls nearest the
    threshold on either side become cases."""
    scored = []
    for k in range(count):
        im = make(k)
        scored.append((rgb_ssim(im.transpose(Image.Transpose.FLIP_LEFT_RIGHT) if flip else im, orig), k, im))
    below = max((s for s in scored if s[0] < threshold), default=None)
    above = min((s for s in scored if s[0] >= threshold), default=None)
    for side, pick in (("below", below), ("above", above)):
        if pick:
            name = save("%s_%s.png" % (tag, side), pick[2])
            args = (o, name) if func == M else (name, o)
            case("edge_%s_%s" % (tag, side), func, *args, "SSIM %.6f against %s" % (pick[0], threshold))


def grain(k, scale):
    noise = np.random.default_rng(100 + k).normal(0, 1, (64, 96, 3)) * (scale * (1 + k))
    return Image.fromarray(np.clip(np.asarray(orig).astype(float) + noise, 0, 255).astype(np.uint8))


near(0.9, lambda k: grain(k, 0.1), 100, "ssim90", T)
near(0.99, lambda k: grain(k, 0.1).transpose(Image.Transpose.FLIP_LEFT_RIGHT), 40, "ssim99", M, flip=True)
near(0.65, lambda k: ImageEnhance.Contrast(grain(k, 0.6)).enhance(1.2), 40, "ssim65", C)

# One value changed by one: the spread, the saturation and the size move by a hair.
px = np.asarray(orig).copy()
px[10, 10] = [255, 255, 255]
case("edge_contrast_one_pixel_up", C, save("one_white.png", Image.fromarray(px)), o, "one pixel made white")
px = np.asarray(orig).copy()
px[10, 10] = px[10, 10] // 2 + 64
case("edge_contrast_one_pixel_down", C, save("one_middle.png", Image.fromarray(px)), o, "one pixel pulled to the middle")
hsv = np.asarray(orig.convert("HSV")).copy()
hsv[20, 20, 1] = min(255, int(hsv[20, 20, 1]) + 40)
case("edge_sat_one_pixel", S, save("one_saturated.png", Image.fromarray(hsv, "HSV").convert("RGB")), o, "one pixel more saturated")

# compare_images (vlc.py): SSIM of the grey pictures at the smaller size, a fraction.
I = "compare_images"
case("images_same", I, o, o, "the same")
case("images_jpeg", I, "orig.jpg", o, "a JPEG of it")
case("images_other", I, ot, o, "another picture")
case("images_sizes", I, "orig_small.png", "big.png", "two sizes: both resized to the smaller")
case("images_aspect", I, "orig_small2.png", "orig.png", "sizes compared as tuples: width first")
case("images_base", I, "orig.jpg", o, "over a base", {"reference_base_result": 0.5})
case("images_base_high", I, "noisy.png", o, "under the base", {"reference_base_result": 0.99})
case("images_missing", I, None, o, "no result")

# Found by a probe from outside: colour keys of 8-bit grey and RGB pictures, Pillow's nearest
# scaling of palette pictures by a running sum, grey pictures in HSV, hues rounded in double.
grey_key = Image.new("L", (140, 100), 0)
grey_key.paste(orig.convert("L").resize((120, 80)), (10, 12))
case("size_grey_key", Z, save("grey_key.png", grey_key, transparency=0), rule("size_grey_key.json", {"width": 120, "height": 80}),
     "a grey picture whose black is transparent: the box of the rest", expected_as="json")
rgb_key = Image.new("RGB", (140, 100), (10, 20, 30))
rgb_key.paste(orig.resize((120, 80)), (10, 12))
case("size_rgb_key", Z, save("rgb_key.png", rgb_key, transparency=(10, 20, 30)), "size_grey_key.json",
     "an RGB colour key", expected_as="json")
small_p = orig.resize((16, 12)).quantize(64)
save("small_p.png", small_p)
case("resized_small_p", R, "small_p.png", save("small_p_big.png", small_p.resize((56, 42), Image.Resampling.NEAREST).convert("RGB")),
     "a palette picture scaled by nearest, 16 to 56 wide")
case("sat_grey_original", S, o, "orig_grey.png", "a grey original: saturation 0, hue 0")
hue_rgb = np.zeros((8, 64, 3), dtype=np.uint8)
for i in range(64):
    hue_rgb[:, i] = [i * 4, 255, (i * 7) % 256]
case("hue_double", S, save("hue_ramp_sat.png", ImageEnhance.Color(Image.fromarray(hue_rgb)).enhance(1.3)),
     save("hue_ramp.png", Image.fromarray(hue_rgb)), "green the largest: hue from 2.0 + rc - bc in double")

with open(os.path.join(FILES, "orig.png"), "rb") as f:
    whole = f.read()
case("size_cut_png", Z, write_bytes("cut.png", whole[: len(whole) // 2]),
     "size_96x64.json", "cut inside its pixels: Pillow reads the size from the header alone", expected_as="json")

# What GIMP itself exported (see make_gimp.sh): its darker, saturated, contrasted, mirrored,
# scaled and indexed pictures of orig.png.
if os.path.isdir(GIMP):
    for f in sorted(os.listdir(GIMP)):
        shutil.copy(os.path.join(GIMP, f), os.path.join(FILES, "gimp_" + f))
    gm = lambda f: "gimp_" + f if os.path.exists(os.path.join(FILES, "gimp_" + f)) else None
    for name, func, result, expected in [
        ("gimp_darker", B, gm("darker.png"), o),
        ("gimp_darker_jpeg", B, gm("darker.jpg"), o),
        ("gimp_saturated", S, gm("saturated.png"), o),
        ("gimp_contrast", C, gm("contrast.png"), o),
        ("gimp_mirror", M, o, gm("flipped.png")),
        ("gimp_mirror_jpeg", M, o, gm("flipped.jpg")),
        ("gimp_scaled", R, gm("scaled.png"), o),
        ("gimp_indexed", P, gm("indexed.png"), o),
        ("gimp_export", F, gm("export.png"), o),
    ]:
        if result and expected:
            case(name, func, result, expected, "as GIMP 2.10 exported it")

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
print(len(cases), "cases")
