"""The Great Expectations API the suites use, imported once (warnings filtered) from the modules that define it.

`great_expectations.expectations` re-exports its classes without `__all__`, which mypy --strict does not
follow; importing them from their defining modules keeps them typed.
"""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    # great_expectations 1.24.1 imports the stdlib modules sre_constants and sre_parse, which
    # Python 3.11 deprecates at import time; nothing else is silenced.
    warnings.filterwarnings(
        "ignore", message=r"module 'sre_(constants|parse)' is deprecated", category=DeprecationWarning
    )
    import great_expectations as gx
    from great_expectations.core import ExpectationValidationResult
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )
    from great_expectations.expectations.core.expect_column_max_to_be_between import ExpectColumnMaxToBeBetween
    from great_expectations.expectations.core.expect_column_values_to_be_between import (
        ExpectColumnValuesToBeBetween,
    )
    from great_expectations.expectations.core.expect_column_values_to_be_in_set import ExpectColumnValuesToBeInSet
    from great_expectations.expectations.core.expect_column_values_to_be_unique import ExpectColumnValuesToBeUnique
    from great_expectations.expectations.core.expect_column_values_to_match_regex import (
        ExpectColumnValuesToMatchRegex,
    )
    from great_expectations.expectations.core.expect_column_values_to_not_be_null import (
        ExpectColumnValuesToNotBeNull,
    )
    from great_expectations.expectations.core.expect_compound_columns_to_be_unique import (
        ExpectCompoundColumnsToBeUnique,
    )
    from great_expectations.expectations.core.expect_table_row_count_to_equal import ExpectTableRowCountToEqual
    from great_expectations.expectations.expectation import Expectation
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

__all__ = [
    "DataContextConfig",
    "ExpectColumnMaxToBeBetween",
    "ExpectColumnValuesToBeBetween",
    "ExpectColumnValuesToBeInSet",
    "ExpectColumnValuesToBeUnique",
    "ExpectColumnValuesToMatchRegex",
    "ExpectColumnValuesToNotBeNull",
    "ExpectCompoundColumnsToBeUnique",
    "ExpectTableRowCountToEqual",
    "Expectation",
    "ExpectationConfiguration",
    "ExpectationValidationResult",
    "InMemoryStoreBackendDefaults",
    "ProgressBarsConfig",
    "gx",
]
