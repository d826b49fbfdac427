"""Conformance cases for ImageDecoder-20, for generate.py's suite.

Each case feeds one small encoded image (odd sizes, seeded pixels) made with PIL (python3-pil) when the
suite is generated, and decodes it with pixel_format RGB, BGR or Grayscale. ONNX Runtime 1.30 has no
ImageDecoder kernel ("Could not find an implementation for ImageDecoder(20)"), so every case carries
`exact`: the expected image from PIL, which is what ONNX's reference implementation decodes with
(onnx/reference/ops/op_image_decoder.py), made layout-stable as the op documents it: convert("RGB")
(palettes expanded, alpha dropped, grey repeated), its channels reversed for BGR, and convert("L")
for Grayscale. generate.py keeps these cases (ort_refuses) and takes `exact` alone.

Only layouts where PIL's reference is unambiguous are here: 8-bit samples (PIL opens 16-bit grey PNG
and PGM as 32-bit "I" images), still images, and formats every decoder handles (no PBM or plain PNM,
which Portolan's stb_image-based PNM decoder refuses).
"""

import io
import sys

import numpy as np
from onnx import TensorProto, helper

try:
    from PIL import Image
except ImportError:  # regenerate the suite with python3-pil installed, or the image cases drop out
    Image = None

FORMATS = ("RGB", "BGR", "Grayscale")


def pil_reference(encoded, pixel_format):
    """What ONNX's reference decodes `encoded` (a 1-D uint8 array) to, as [H, W, C] uint8."""
    image = Image.open(io.BytesIO(encoded.tobytes()))
    if pixel_format == "Grayscale":
        return np.array(image.convert("L"))[:, :, np.newaxis]
    rgb = np.array(image.convert("RGB"))
    return np.ascontiguousarray(rgb[:, :, ::-1]) if pixel_format == "BGR" else rgb


def _encode(image, **options):
    out = io.BytesIO()
    image.save(out, **options)
    return np.frombuffer(out.getvalue(), dtype=np.uint8).copy()


def _photo(rng, height, width):
    """Gradients plus noise: chroma subsampling and the IDCT have something to round."""
    y, x = np.mgrid[0:height, 0:width]
    base = np.stack([x * 255.0 / (width - 1), y * 255.0 / (height - 1), (x + y) * 127.0 / (height + width - 2)], -1)
    return np.clip(base + rng.normal(0, 40, (height, width, 3)), 0, 255).astype(np.uint8)


def _noise(rng, height, width, channels):
    shape = (height, width) if channels == 1 else (height, width, channels)
    return rng.integers(0, 256, shape, dtype=np.uint8)


def add_cases(case, floats, rng):
    if Image is None:
        # regenerating without it would silently drop the committed ImageDecoder cases
        sys.exit("cases_image: python3-pil is needed (scripts/install-deps.sh --conformance installs it)")

    def decode(name, encoded, formats=FORMATS):
        for pixel_format in formats:
            node = helper.make_node("ImageDecoder", ["encoded_stream"], ["image"], pixel_format=pixel_format)
            case(20, f"image_decoder_{name}_{pixel_format.lower()}", [node], [("encoded_stream", encoded)],
                 [("image", TensorProto.UINT8)],
                 exact=lambda feeds, f=pixel_format: {"image": pil_reference(feeds["encoded_stream"], f)},
                 ort_refuses="ONNX Runtime 1.30 has no ImageDecoder kernel")

    photo = Image.fromarray(_photo(rng, 9, 13))
    # JPEG: 4:2:0 with odd dims (the spec's "fancy" chroma upsampling at the edges), 4:4:4, progressive,
    # a grey JPEG and an Adobe CMYK one (PIL's inverted-CMYK conversion)
    decode("jpeg_420", _encode(photo, format="JPEG", quality=90))
    decode("jpeg_444", _encode(photo, format="JPEG", quality=95, subsampling=0), ("RGB",))
    decode("jpeg_progressive", _encode(photo, format="JPEG", quality=80, progressive=True), ("RGB", "Grayscale"))
    decode("jpeg_grey", _encode(photo.convert("L"), format="JPEG", quality=85), ("RGB", "Grayscale"))
    decode("jpeg_cmyk", _encode(Image.fromarray(_noise(rng, 5, 7, 4), "CMYK"), format="JPEG", quality=90),
           ("RGB", "Grayscale"))
    # PNG: RGB; RGBA (alpha dropped); a palette with a transparent entry; grey with alpha
    decode("png_rgb", _encode(Image.fromarray(_noise(rng, 5, 7, 3)), format="PNG"))
    decode("png_rgba", _encode(Image.fromarray(_noise(rng, 7, 5, 4), "RGBA"), format="PNG"), ("RGB", "Grayscale"))
    palette = Image.fromarray(_noise(rng, 6, 9, 3)).quantize(colors=11)
    decode("png_palette", _encode(palette, format="PNG", transparency=2), ("RGB", "Grayscale"))
    decode("png_grey_alpha", _encode(Image.fromarray(_noise(rng, 5, 3, 2), "LA"), format="PNG"), ("RGB", "Grayscale"))
    # BMP: 24-bit and 8-bit palette
    decode("bmp_rgb", _encode(Image.fromarray(_noise(rng, 5, 7, 3)), format="BMP"))
    decode("bmp_palette", _encode(Image.fromarray(_noise(rng, 6, 5, 3)).quantize(colors=17), format="BMP"),
           ("RGB", "Grayscale"))
    # TIFF: uncompressed RGB, LZW grey, deflate RGBA
    decode("tiff_rgb", _encode(Image.fromarray(_noise(rng, 7, 5, 3)), format="TIFF"))
    decode("tiff_grey_lzw", _encode(Image.fromarray(_noise(rng, 5, 7, 1)), format="TIFF", compression="tiff_lzw"),
           ("RGB", "Grayscale"))
    decode("tiff_rgba_deflate", _encode(Image.fromarray(_noise(rng, 5, 6, 4), "RGBA"), format="TIFF",
                                        compression="tiff_adobe_deflate"), ("RGB",))
    # WebP: lossy (libwebp's fancy upsampling) and lossless
    decode("webp_lossy", _encode(photo, format="WEBP", quality=80))
    decode("webp_lossless", _encode(Image.fromarray(_noise(rng, 5, 7, 3)), format="WEBP", lossless=True),
           ("RGB",))
    # JPEG 2000: a JP2 file and a bare J2K codestream
    decode("jp2_rgb", _encode(Image.fromarray(_noise(rng, 5, 7, 3)), format="JPEG2000"))
    decode("j2k_grey", _encode(Image.fromarray(_noise(rng, 7, 5, 1)), format="JPEG2000", no_jp2=True),
           ("RGB", "Grayscale"))
    # PNM: binary PPM and PGM
    decode("ppm", _encode(Image.fromarray(_noise(rng, 5, 7, 3)), format="PPM"))
    decode("pgm", _encode(Image.fromarray(_noise(rng, 3, 5, 1)), format="PPM"), ("RGB", "Grayscale"))
