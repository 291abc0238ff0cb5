//! The decision tree model every solver returns: binary tests on 0/1 features, nodes in
//! pre-order with the root first, each carrying a leaf value summarising the training
//! rows it captures (for classification, their class weights).

use crate::dataset::{leaf_loss, BinaryDataset};

/// One node: a test (`feature` = Some) or a leaf (`feature` = None), holding the value
/// `V` of the rows it captures (for classifiers, the weight of each class).
#[derive(Clone, Debug, PartialEq)]
pub struct Node<V = Vec<f64>> {
    /// Feature tested here; rows with value 0 go `left`, value 1 go `right`.
    pub feature: Option<usize>,
    /// Index of the child for feature value 0 (unused on leaves).
    pub left: usize,
    /// Index of the child for feature value 1 (unused on leaves).
    pub right: usize,
    /// Summary of the training rows reaching this node (for classifiers, the weight of
    /// each class among them).
    pub value: V,
}

impl Node<Vec<f64>> {
    /// Class predicted if this node were a leaf (heaviest class, lowest index on ties).
    pub fn prediction(&self) -> usize {
        leaf_loss(&self.value).1
    }
}

/// A binary decision tree over 0/1 features.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree<V = Vec<f64>> {
    /// Nodes, root at index 0.
    pub nodes: Vec<Node<V>>,
}

impl<V> Default for Tree<V> {
    fn default() -> Self {
        Tree { nodes: Vec::new() }
    }
}

impl<V> Tree<V> {
    /// Number of leaves.
    pub fn n_leaves(&self) -> usize {
        self.nodes.iter().filter(|n| n.feature.is_none()).count()
    }

    /// Depth in scikit-learn's sense: a single leaf has depth 0.
    pub fn depth(&self) -> usize {
        fn go<V>(t: &Tree<V>, i: usize) -> usize {
            match t.nodes[i].feature {
                None => 0,
                Some(_) => 1 + go(t, t.nodes[i].left).max(go(t, t.nodes[i].right)),
            }
        }
        if self.nodes.is_empty() {
            0
        } else {
            go(self, 0)
        }
    }

    /// Index of the leaf reached by a row given as a feature lookup.
    pub fn leaf_of(&self, value: impl Fn(usize) -> u8) -> usize {
        let mut i = 0;
        while let Some(j) = self.nodes[i].feature {
            i = if value(j) == 1 { self.nodes[i].right } else { self.nodes[i].left };
        }
        i
    }

}

impl Tree<Vec<f64>> {
    /// Weighted misclassification of the tree's leaf predictions on a packed dataset.
    pub fn loss(&self, data: &BinaryDataset) -> f64 {
        let mut loss = 0.0;
        for g in 0..data.n_groups() {
            let leaf = self.leaf_of(|j| data.feature_of(g, j));
            let predicted = self.nodes[leaf].prediction();
            loss += data.group_weight(g) - data.class_weights(g)[predicted];
        }
        loss
    }

    /// GOSDT objective: misclassified weight / total weight + `regularization` x leaves.
    pub fn objective(&self, data: &BinaryDataset, regularization: f64) -> f64 {
        self.loss(data) / data.total_weight() + regularization * self.n_leaves() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stump() -> Tree {
        Tree {
            nodes: vec![
                Node { feature: Some(0), left: 1, right: 2, value: vec![2.0, 2.0] },
                Node { feature: None, left: 0, right: 0, value: vec![2.0, 0.0] },
                Node { feature: None, left: 0, right: 0, value: vec![0.0, 2.0] },
            ],
        }
    }

    #[test]
    fn stump_routes_and_scores() {
        let t = stump();
        assert_eq!(t.n_leaves(), 2);
        assert_eq!(t.depth(), 1);
        assert_eq!(t.leaf_of(|_| 1), 2);
        let x = [0, 0, 1, 1];
        let y = [0, 0, 1, 0];
        let d = BinaryDataset::new(&x, 4, 1, &y, 2, None).unwrap();
        assert_eq!(t.loss(&d), 1.0);
        assert!((t.objective(&d, 0.1) - 0.45).abs() < 1e-12);
    }
}
