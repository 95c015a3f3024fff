// Stands in for CSS imports in component tests.
module.exports = {};
