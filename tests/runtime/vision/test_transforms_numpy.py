"""The numpy-image path of paddle.vision.transforms (Paddle's OpenCV-backend semantics, computed
in numpy). Real Paddle cannot run this path here (it needs ``cv2``), so the expected values are
independent numpy references: direct per-pixel formulas of OpenCV's documented algorithms, exact
identities (90-degree rotations, identity warps) and np.pad. Tolerances: exact for nearest,
padding, flips, lookup-table colour ops and OpenCV's fixed-point bilinear warps; 1 grey level for
uint8 resize with bilinear/bicubic/lanczos/area (OpenCV rounds fixed-point sums, we round float
sums); 1e-5 relative for float images."""
import math
import random

import numpy as np
import pytest

import runtime as paddle
from runtime.vision import transforms as T
from runtime.vision.transforms import functional as F


@pytest.fixture
def img():
    return np.random.RandomState(0).randint(0, 256, (6, 8, 3)).astype(np.uint8)


def _bilinear_ref(src, oh, ow):
    """cv2.INTER_LINEAR by its definition, one output pixel at a time."""
    h, w = src.shape[:2]
    out = np.zeros((oh, ow) + src.shape[2:])
    for y in range(oh):
        fy = (y + 0.5) * h / oh - 0.5
        y0 = min(max(int(math.floor(fy)), 0), h - 1)
        ty = 0.0 if fy < 0 or y0 >= h - 1 else fy - y0
        for x in range(ow):
            fx = (x + 0.5) * w / ow - 0.5
            x0 = min(max(int(math.floor(fx)), 0), w - 1)
            tx = 0.0 if fx < 0 or x0 >= w - 1 else fx - x0
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            out[y, x] = ((1 - ty) * ((1 - tx) * src[y0, x0] + tx * src[y0, x1])
                         + ty * ((1 - tx) * src[y1, x0] + tx * src[y1, x1]))
    return out


@pytest.mark.parametrize("size", [(3, 4), (11, 13), (6, 3)])
def test_resize_bilinear_and_nearest(img, size):
    ref = _bilinear_ref(img.astype(np.float64), *size)
    out = F.resize(img, size)
    assert out.dtype == np.uint8 and out.shape == size + (3,)
    assert np.abs(out.astype(np.float64) - ref).max() <= 1
    np.testing.assert_allclose(F.resize(img.astype(np.float32), size), ref, rtol=1e-5, atol=1e-4)
    near = F.resize(img, size, "nearest")
    ri = np.minimum((np.arange(size[0]) * 6 / size[0]).astype(int), 5)
    ci = np.minimum((np.arange(size[1]) * 8 / size[1]).astype(int), 7)
    np.testing.assert_array_equal(near, img[ri][:, ci])


def test_resize_area_lanczos_bicubic(img):
    x = img.astype(np.float32)
    # INTER_AREA with an integer factor is the box average
    np.testing.assert_allclose(F.resize(x, (3, 4), "area"), x.reshape(3, 2, 4, 2, 3).mean(axis=(1, 3)), rtol=1e-6)
    # non-integer shrink: every output pixel is an overlap-weighted mean, so constants stay constant
    const = np.full((7, 10, 1), 42.0, np.float32)
    for mode in ("area", "bicubic", "lanczos", "bilinear"):
        np.testing.assert_allclose(F.resize(const, (3, 4), mode), 42.0, rtol=1e-6)
        np.testing.assert_allclose(F.resize(const, (9, 13), mode), 42.0, rtol=1e-6)
    # upsampling by 1 is the identity for every kernel
    for mode in ("nearest", "bilinear", "bicubic", "lanczos", "area"):
        np.testing.assert_allclose(F.resize(x, (6, 8), mode), x, atol=1e-4)
    # 1-channel HWC images keep their channel axis, HW stay HW
    assert F.resize(img[:, :, :1], (3, 3)).shape == (3, 3, 1)
    assert F.resize(img[:, :, 0], (3, 3)).shape == (3, 3)
    # an int size sets the shorter side; equal shorter side is returned unchanged
    assert F.resize(img, 3).shape == (3, 4, 3)
    assert F.resize(img, 6) is img
    with pytest.raises(ValueError, match="interpolation"):
        F.resize(img, 3, "hamming")
    with pytest.raises(TypeError, match="size"):
        F.resize(img, (1, 2, 3))


@pytest.mark.parametrize("mode,np_mode", [("edge", "edge"), ("reflect", "reflect"), ("symmetric", "symmetric")])
def test_pad_modes(img, mode, np_mode):
    out = F.pad(img, (1, 2, 3, 4), padding_mode=mode)
    np.testing.assert_array_equal(out, np.pad(img, ((2, 4), (1, 3), (0, 0)), np_mode))


def test_pad_constant_uses_opencv_scalar(img):
    out = F.pad(img, 2, fill=(9, 8, 7))
    assert out.shape == (10, 12, 3)
    np.testing.assert_array_equal(out[0, 0], [9, 8, 7])
    np.testing.assert_array_equal(out[2:-2, 2:-2], img)
    # a number fills channel 0 only (cv2.copyMakeBorder's Scalar(v, 0, 0, 0))
    np.testing.assert_array_equal(F.pad(img, (1, 1), fill=5)[0, 0], [5, 0, 0])
    np.testing.assert_array_equal(F.pad(img[:, :, :1], 1, fill=5)[0, 0], [5])
    with pytest.raises(ValueError, match="4 element tuple"):
        F.pad(img, (1, 2, 3))


def test_crop_flip_erase(img):
    np.testing.assert_array_equal(F.crop(img, 1, 2, 3, 4), img[1:4, 2:6])
    np.testing.assert_array_equal(F.center_crop(img, (2, 4)), img[2:4, 2:6])
    np.testing.assert_array_equal(F.hflip(img), img[:, ::-1])
    np.testing.assert_array_equal(F.vflip(img), img[::-1])
    out = F.erase(img, 1, 2, 2, 3, np.array([1, 2, 3]))
    assert (out[1:3, 2:5] == [1, 2, 3]).all() and (img[1:3, 2:5] != out[1:3, 2:5]).any()
    same = img.copy()
    assert F.erase(same, 0, 0, 1, 1, 0, inplace=True) is same and same[0, 0].tolist() == [0, 0, 0]


def test_rotate_by_right_angles_is_exact():
    a = np.arange(5 * 5 * 2, dtype=np.uint8).reshape(5, 5, 2)
    # about the centre pixel (2, 2): 90 degrees counter-clockwise is np.rot90
    np.testing.assert_array_equal(F.rotate(a, 90, center=(2, 2)), np.rot90(a))
    np.testing.assert_array_equal(F.rotate(a, 180, "bilinear", center=(2, 2)), a[::-1, ::-1])
    np.testing.assert_array_equal(F.rotate(a.astype(np.float32), -90, "bicubic", center=(2, 2)),
                                  np.rot90(a, -1).astype(np.float32))
    assert F.rotate(np.zeros((4, 6, 3), np.uint8), 90, expand=True).shape == (6, 4, 3)


def test_rotate_bilinear_matches_per_pixel_reference():
    rng = np.random.RandomState(1)
    a = rng.randint(0, 256, (7, 9)).astype(np.uint8)
    angle, (cx, cy) = 17.0, (4.5, 3.5)
    out = F.rotate(a, angle, "bilinear", fill=0)
    al, be = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    m = np.array([[al, be, (1 - al) * cx - be * cy], [-be, al, be * cx + (1 - al) * cy], [0, 0, 1]])
    inv = np.linalg.inv(m)
    for y in range(7):
        for x in range(9):
            # OpenCV's warpAffine fixed point: each term of the source position rounded to 1/1024
            # pixel, then truncated to 1/32 (+16/1024 to round); weights in 1/32768, sum rounded
            X = (round(inv[0, 0] * x * 1024) + round((inv[0, 1] * y + inv[0, 2]) * 1024) + 16) >> 5
            Y = (round(inv[1, 0] * x * 1024) + round((inv[1, 1] * y + inv[1, 2]) * 1024) + 16) >> 5
            x0, y0, fx, fy = X >> 5, Y >> 5, (X & 31) / 32, (Y & 31) / 32
            acc = 0
            for dy, wy in ((0, 1 - fy), (1, fy)):
                for dx, wx in ((0, 1 - fx), (1, fx)):
                    yy, xx = y0 + dy, x0 + dx
                    acc += round(wx * wy * 32768) * (int(a[yy, xx]) if 0 <= yy < 7 and 0 <= xx < 9 else 0)
            assert int(out[y, x]) == (acc + 16384) >> 15, (y, x)
    # and the result is within a grey level of exact bilinear interpolation at the true position
    sx, sy = inv[0] @ [4, 3, 1], inv[1] @ [4, 3, 1]
    x0, y0 = int(sx), int(sy)
    fx, fy = sx - x0, sy - y0
    exact = ((1 - fy) * ((1 - fx) * a[y0, x0] + fx * a[y0, x0 + 1]) + fy * ((1 - fx) * a[y0 + 1, x0] + fx * a[y0 + 1, x0 + 1]))
    assert abs(int(out[3, 4]) - exact) <= 4


def test_affine_follows_paddles_opencv_matrix(img):
    # translation replaces the rotation matrix's offset column (Paddle's cv2 code): with angle 0,
    # scale 1 and no shear it is a pure integer shift
    out = F.affine(img, 0, (2, 1), 1.0, 0)
    np.testing.assert_array_equal(out[1:, 2:], img[:-1, :-2])
    assert (out[0] == 0).all() and (out[:, :2] == 0).all()
    out = F.affine(img, 0, (0, 0), 2.0, 0)        # scale about the origin: pixel (2x, 2y) <- (x, y)
    np.testing.assert_array_equal(out[::2, ::2][:3, :4], img[:3, :4])
    with pytest.raises(ValueError, match="scale should be positive"):
        F.affine(img, 0, (0, 0), 0, 0)
    with pytest.raises(TypeError, match="translate should be a sequence"):
        F.affine(img, 0, 3, 1.0, 0)


def test_perspective_identity_and_shift(img):
    pts = [[0, 0], [7, 0], [7, 5], [0, 5]]
    np.testing.assert_array_equal(F.perspective(img, pts, pts), img)
    moved = [[p[0] + 1, p[1]] for p in pts]
    out = F.perspective(img, pts, moved, "bilinear")
    np.testing.assert_array_equal(out[:, 1:], img[:, :-1])


def test_color_ops(img):
    np.testing.assert_array_equal(F.adjust_brightness(img, 1.5),
                                  np.clip(np.arange(256) * 1.5, 0, 255).astype(np.uint8)[img])
    np.testing.assert_array_equal(F.adjust_brightness(img.astype(np.float64), 1.0), img)   # cast to uint8 first
    np.testing.assert_array_equal(F.adjust_contrast(img, 0.5),
                                  np.clip((np.arange(256) - 74) * 0.5 + 74, 0, 255).astype(np.uint8)[img])
    with pytest.raises(TypeError, match="uint8"):
        F.adjust_contrast(img.astype(np.float32), 0.5)
    g = F.to_grayscale(img)
    ref = np.floor(img[..., 0] * 0.299 + img[..., 1] * 0.587 + img[..., 2] * 0.114 + 0.5)
    assert g.shape == (6, 8, 1) and np.abs(g[..., 0].astype(float) - ref).max() <= 1
    assert F.to_grayscale(img, 3).shape == (6, 8, 3)
    with pytest.raises(ValueError, match="num_output_channels"):
        F.to_grayscale(img, 2)


def test_hue_shift_roundtrip_and_known_colours():
    colours = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [10, 200, 90], [128, 128, 128]]], np.uint8)
    # a zero shift only runs OpenCV's 8-bit HSV round trip; its hue has 256 steps, so pure blue
    # (hue 170.67 -> 171) comes back as (255, 0, 2), exactly as OpenCV returns it
    back = F.adjust_hue(colours, 0.0)
    np.testing.assert_array_equal(back[0, 0], [255, 0, 2])
    assert np.abs(back.astype(int) - colours).max() <= 2
    # channel 0 is read as blue (COLOR_BGR2HSV_FULL): +1/3 turn sends B -> G -> R -> B, up to 8-bit hue rounding
    out = F.adjust_hue(colours, 1 / 3).astype(int)
    assert np.abs(out[0, 0] - [0, 0, 255]).max() <= 8, out[0, 0]
    assert np.abs(out[0, 1] - [255, 0, 0]).max() <= 8, out[0, 1]
    np.testing.assert_array_equal(out[0, 4], [128, 128, 128])        # grey has no hue
    with pytest.raises(ValueError, match="not in"):
        F.adjust_hue(colours, 0.7)


def test_saturation_draws_its_factor_like_paddle(img):
    x = img.astype(np.float32)
    np.random.seed(3)
    out = F.adjust_saturation(img, 0.5)
    np.random.seed(3)
    alpha = np.random.uniform(0.5, 1.5)
    gray = (0.114 * x[..., 0] + 0.587 * x[..., 1] + 0.299 * x[..., 2])[..., None]
    ref = (x * alpha + gray * (1 - alpha)).clip(0, 255).astype(np.uint8)
    assert np.abs(out.astype(int) - ref).max() <= 1
    np.testing.assert_array_equal(F.adjust_saturation(img, 0.0), img)   # factor drawn from [1, 1]


def test_normalize_and_to_tensor(img):
    out = F.normalize(img, [1, 2, 3], [2, 2, 2], data_format="HWC")
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, (img - np.array([1, 2, 3], np.float32)) / 2)
    # to_rgb reverses the last axis (Paddle's img[..., ::-1])
    np.testing.assert_allclose(F.normalize(img, [0, 0, 0], [1, 1, 1], "HWC", to_rgb=True), img[..., ::-1])
    assert F.normalize(img.astype(np.float64), [0] * 3, [1] * 3, "HWC").dtype == np.float64
    t = F.to_tensor(img)
    assert isinstance(t, paddle.Tensor) and t.shape == [3, 6, 8] and t.dtype == paddle.float32
    assert F.to_tensor(t, "HWC").shape == [6, 8, 3]
    with pytest.raises(TypeError, match="ndarray with dim"):
        F.to_tensor(np.zeros((1, 2, 3, 4)))


def test_random_transforms_contract(img):
    assert T.RandomHorizontalFlip(1.0)(img).tolist() == img[:, ::-1].tolist()
    assert T.RandomHorizontalFlip(0.0)(img) is img
    assert T.RandomVerticalFlip(1.0)(img).tolist() == img[::-1].tolist()
    assert T.RandomPerspective(0.0)(img) is img
    assert T.RandomErasing(0.0)(img) is img
    assert T.RandomResizedCrop(4)(img).shape == (4, 4, 3)
    assert T.RandomCrop(4)(img).shape == (4, 4, 3)
    assert T.RandomCrop((9, 10), pad_if_needed=True)(img).shape == (9, 10, 3)
    assert T.RandomRotation(30)(img).shape == img.shape
    assert T.RandomAffine(10, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)(img).shape == img.shape
    assert T.ColorJitter(0.3, 0.3, 0.3, 0.1)(img).shape == img.shape
    erased = T.RandomErasing(1.0, value=(1, 2, 3))(img)
    assert erased.shape == img.shape and (erased != img).any()

    def run(seed):
        random.seed(seed)
        np.random.seed(seed)
        pipe = T.Compose([T.RandomResizedCrop(5), T.ColorJitter(0.4, 0.4, 0.4, 0.1), T.RandomRotation(20),
                          T.RandomErasing(1.0, value="random")])
        return pipe(img)

    np.testing.assert_array_equal(run(7), run(7))
    assert not np.array_equal(run(7), run(8))


def test_transform_argument_errors():
    with pytest.raises(ValueError, match="single number"):
        T.RandomRotation(-1)
    with pytest.raises(ValueError, match="between 0 and 1"):
        T.RandomAffine(5, translate=(2, 0))
    with pytest.raises(AssertionError, match="probability"):
        T.RandomHorizontalFlip(2)
    with pytest.raises(ValueError, match="'random'"):
        T.RandomErasing(value="noise")
    with pytest.raises(ValueError, match="hue values should be between"):
        T.HueTransform((0.1, 0.9))
    with pytest.raises(ValueError, match="element tuple"):
        T.Pad((1, 2, 3))
    assert T.BrightnessTransform(0).value is None     # a zero range does nothing
    assert T.Transpose()(np.zeros((2, 3), np.uint8)).shape == (1, 2, 3)
