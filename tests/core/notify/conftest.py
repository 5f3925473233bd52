"""The notify tests run controllers on the simulator as the controller's tests do."""

from tests.core.controller.conftest import make_controller

__all__ = ["make_controller"]
